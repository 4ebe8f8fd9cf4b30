import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runHookProcess } from "../../../src/safety/hooks/hook-process.js";
import { disposeShellProcesses } from "../../../src/workspace/local/process/background-registry.js";
import { cgroupsAvailable, joinCgroupScript } from "../../../src/workspace/local/process/cgroup.js";
import { useTempDir } from "../../helpers/temp-dir.js";
import { bashWith, outputPaths } from "./output-paths.js";
import { runTool } from "./run-tool.js";
import {
	cgroupDirectory,
	cgroupOf,
	eventually,
	isOutputRelay,
	killMarked,
	newMarker,
	processesWithArgument,
	processesWithMarker,
} from "./survivors.js";

const markers: string[] = [];
afterEach(async () => {
	await disposeShellProcesses();
	for (const marker of markers.splice(0)) killMarked(marker);
});

describe.skipIf(process.platform !== "linux" || !cgroupsAvailable())("cgroup containment", () => {
	const tempDir = useTempDir();

	describe.each(outputPaths)("$name", ({ operations }) => {
		const bash = bashWith(operations);

		it("puts every process of a command in the command's own cgroup, removed after the call", async () => {
			const { marker, env } = newMarker();
			markers.push(marker);
			// `-w`: as the shell's last command, setsid would fork and leave its child behind as a job.
			const outcome = await runTool(bash(tempDir(), { env }), {
				command:
					"cut -d: -f3 /proc/self/cgroup | tail -n 1; setsid -w env -i sh -c 'cut -d: -f3 /proc/self/cgroup | tail -n 1'",
			});
			const [own, escaped] = outcome.text.trim().split("\n");
			expect(own).toMatch(/\/toolbelt-\d+-[0-9a-f]+\/run-\d+$/);
			expect(escaped).toBe(own);
			const directory = cgroupDirectory(own ?? "");
			expect(directory && existsSync(dirname(directory))).toBe(true);
			expect(directory && existsSync(directory)).toBe(false);
		});

		it("keeps a background job's cgroup, with the job and the relay inside, until disposal", async () => {
			const { marker, env } = newMarker();
			markers.push(marker);
			const outcome = await runTool(bash(tempDir(), { env }), { command: "sleep 60 & echo started" });
			const pids = processesWithMarker(marker);
			expect(outcome.details?.backgroundPids.length).toBe(1);
			const groups = new Set(pids.map(cgroupOf));
			// The job and (through a file) the relay share one cgroup; the relay is not reported as a job.
			expect(groups.size).toBe(1);
			expect(outcome.details?.backgroundPids.some(isOutputRelay)).toBe(false);
			const directory = cgroupDirectory([...groups][0] ?? "");
			expect(directory && existsSync(directory)).toBe(true);
			await disposeShellProcesses();
			expect(await eventually(() => processesWithMarker(marker).length === 0)).toBe(true);
			expect(directory && existsSync(directory)).toBe(false);
		});
	});

	it("refuses to run a command it could not move into its cgroup", () => {
		const script = `${joinCgroupScript(join(tempDir(), "no-such-cgroup"))}\necho ran`;
		const result = spawnSync("/bin/sh", ["-c", script], { encoding: "utf8" });
		expect(result.status).toBe(125);
		expect(result.stdout).toBe("");
		expect(result.stderr).toContain("could not move the command into its cgroup, so it was not run");
	});

	it("a hook's setsid env -i child dies when the hook exits", async () => {
		// Found by a unique argument, not by pid: in a PID namespace `$$` is not the host's pid.
		const duration = `60.${process.pid}${Date.now() % 100_000}`;
		const script = `setsid env -i sh -c 'sleep ${duration}' & sleep 0.2; exit 0`;
		await runHookProcess({
			command: script,
			stdin: "{}",
			cwd: tempDir(),
			env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
			timeoutMs: 10_000,
		});
		expect(processesWithArgument(`sleep ${duration}`)).toEqual([]);
	});
});

describe.skipIf(process.platform !== "linux")("a hook given as one path", () => {
	const tempDir = useTempDir();
	const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", PWD: "/" };

	/** Writes an executable file (no `#!` line unless the body has one) and returns its path. */
	function executable(name: string, body: string): string {
		const path = join(tempDir(), name);
		writeFileSync(path, body, { mode: 0o755 });
		return path;
	}

	it("runs as `sh -c` would run it: a file without #! through sh, stdin, PWD, exit code; nothing left running", async () => {
		const duration = `60.${process.pid}${Date.now() % 100_000}`;
		const hook = executable(
			"no-shebang-hook",
			`read -r line; echo "in:$line pwd:$PWD"; setsid env -i sh -c 'sleep ${duration}' & exit 3\n`,
		);
		const cwd = join(tempDir(), "work");
		mkdirSync(cwd);
		const result = await runHookProcess({ command: hook, stdin: '{"a":1}\n', cwd, env, timeoutMs: 10_000 });
		expect(result).toMatchObject({ exitCode: 3, stdout: `in:{"a":1} pwd:${cwd}\n`, stderr: "" });
		expect(processesWithArgument(`sleep ${duration}`)).toEqual([]);
	});

	it("a missing or non-executable path: the shell's exit codes, and the message names the file", async () => {
		const missing = join(tempDir(), "missing-hook.sh");
		const notExecutable = join(tempDir(), "plain.txt");
		writeFileSync(notExecutable, "echo never\n");
		const run = (command: string) => runHookProcess({ command, stdin: "{}", cwd: tempDir(), env, timeoutMs: 10_000 });
		const [gone, refused] = [await run(missing), await run(notExecutable)];
		expect(gone.exitCode).toBe(127);
		expect(gone.stderr).toContain(missing);
		expect(refused.exitCode).toBe(126);
		expect(refused.stderr).toContain(notExecutable);
		expect(refused.stdout).toBe("");
		expect(`${gone.stderr}${refused.stderr}`).not.toContain("unshare");
	});
});
