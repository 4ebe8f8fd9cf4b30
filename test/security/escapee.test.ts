import { randomInt } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { CliProcesses, cleanEnv, ensureBuiltCli } from "../cli/helpers/cli-binary.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { killProcessesWithArgument, processesWithArgument } from "../tools/shell/survivors.js";

/**
 * Escapees: processes a command (or a hook) starts that shed every trace toolbelt could follow
 * before — a new session (`setsid`), a cleared environment (`env -i`), a double fork that leaves
 * them orphaned. None may outlive the CLI, the MCP server, or the hook that started it.
 */

/** Live (non-zombie) processes whose command line contains `needle`. */
function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return !readFileSync(`/proc/${pid}/stat`, "latin1").includes(") Z ");
	} catch {
		return false;
	}
}

/** Removes a cgroup directory the test made, once its processes are gone (bounded wait). */
async function removeWhenEmpty(directory: string): Promise<void> {
	const deadline = Date.now() + 3000;
	while (existsSync(directory) && Date.now() < deadline) {
		try {
			rmdirSync(directory);
		} catch {
			await new Promise((resolve) => setTimeout(resolve, 50));
		}
	}
}

/** Waits (bounded) until no process matches `needle`; returns those still alive. */
async function survivorsAfter(needle: string, timeoutMs = 3000): Promise<number[]> {
	const deadline = Date.now() + timeoutMs;
	while (processesWithArgument(needle).length > 0 && Date.now() < deadline) {
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
	return processesWithArgument(needle);
}

const needles: string[] = [];
/** A `sleep` duration no other process on the machine uses: `sleep 300.<random>`. */
function uniqueSleep(): string {
	const needle = `sleep 300.${randomInt(1_000_000, 9_999_999)}`;
	needles.push(needle);
	return needle;
}

/** Shell text that waits (at most 5 s) until `sleep` runs as its own program (after `setsid` and `env -i`). */
function waitUntilStarted(sleep: string): string {
	const pattern = `^${sleep.replaceAll(".", "\\.")}$`;
	return `i=0; while ! pgrep -f '${pattern}' >/dev/null && [ $i -lt 250 ]; do i=$((i+1)); sleep 0.02; done`;
}

const cli = new CliProcesses();

afterEach(() => {
	cli.killAll();
	// A failing test must not leak its escapees into the rest of the suite.
	for (const needle of needles.splice(0)) killProcessesWithArgument(needle);
});

beforeAll(() => {
	ensureBuiltCli();
});

describe.skipIf(process.platform !== "linux")("no escapee outlives a call", () => {
	const tempDir = useTempDir();

	it("setsid env -i sleep & is reported and does not outlive `toolbelt tool bash`", { timeout: 30_000 }, async () => {
		const sleep = uniqueSleep();
		const command = `setsid env -i ${sleep} & echo "started $!"`;
		const run = await cli.run(["tool", "bash", JSON.stringify({ command }), "--cwd", tempDir()], {
			env: cleanEnv(),
		});
		expect(run.stdout).toContain("started");
		const startedPid = /started (\d+)/.exec(run.stdout)?.[1];
		// Reported to the model as still running (it is killed when toolbelt exits).
		expect(run.stdout).toMatch(new RegExp(`Still running in the background: pid [0-9, ]*\\b${startedPid}\\b`));
		expect(await survivorsAfter(sleep)).toEqual([]);
	});

	it("a daemon that double-forks, starts a session and clears its environment dies with the CLI", {
		timeout: 30_000,
	}, async () => {
		const sleep = uniqueSleep();
		const script = join(tempDir(), "daemon.sh");
		// The classic daemon: fork, new session, fork again, the middle process exits, all fds closed.
		writeFileSync(
			script,
			`#!/bin/sh\n( setsid env -i /bin/sh -c '${sleep} </dev/null >/dev/null 2>&1 & exit 0' </dev/null >/dev/null 2>&1 & )\necho daemonized\n`,
			{ mode: 0o755 },
		);
		const run = await cli.run(["tool", "bash", JSON.stringify({ command: `sh ${script}` }), "--cwd", tempDir()], {
			env: cleanEnv(),
		});
		expect(run.stdout).toContain("daemonized");
		expect(await survivorsAfter(sleep)).toEqual([]);
	});

	it("a command that creates a cgroup below its own and moves its escapee there still loses it", {
		timeout: 30_000,
	}, async () => {
		const sleep = uniqueSleep();
		// The command finds its own cgroup directory through the cgroup2 mount, as root could.
		const script = join(tempDir(), "nest.sh");
		writeFileSync(
			script,
			[
				"#!/bin/sh",
				`mount=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)`,
				`own="$mount$(sed -n 's/^0:://p' /proc/self/cgroup)"`,
				`inner="$own/escapee-${randomInt(1_000_000, 9_999_999)}"`,
				`mkdir "$inner" || { echo "no cgroup to nest in"; exit 0; }`,
				`echo "created $inner"`,
				`(setsid env -i /bin/sh -c 'echo $$ > "$1/cgroup.procs"; exec ${sleep}' sh "$inner" </dev/null >/dev/null 2>&1 &)`,
				waitUntilStarted(sleep),
				"echo nested",
			].join("\n"),
			{ mode: 0o755 },
		);
		const run = await cli.run(["tool", "bash", JSON.stringify({ command: `sh ${script}` }), "--cwd", tempDir()], {
			env: cleanEnv(),
		});
		const inner = /created (\S+)/.exec(run.stdout)?.[1];
		try {
			// As root (as here) the command can always nest a cgroup below its own.
			if (process.getuid?.() === 0) expect(run.stdout).toContain("nested");
			expect(await survivorsAfter(sleep)).toEqual([]);
		} finally {
			for (const pid of processesWithArgument(sleep)) process.kill(pid, "SIGKILL");
			if (inner) await removeWhenEmpty(inner);
		}
	});

	it("a command timed out while its escapee runs: nothing survives", { timeout: 30_000 }, async () => {
		const sleep = uniqueSleep();
		const command = `(setsid env -i ${sleep} </dev/null >/dev/null 2>&1 &); sleep 60`;
		const run = await cli.run(["tool", "bash", JSON.stringify({ command, timeout: 1 }), "--cwd", tempDir()], {
			env: cleanEnv(),
		});
		expect(run.stderr + run.stdout).toContain("timed out");
		expect(await survivorsAfter(sleep)).toEqual([]);
	});

	it("an escapee started over MCP dies when the client disconnects", { timeout: 30_000 }, async () => {
		const sleep = uniqueSleep();
		const transport = new StdioClientTransport({
			command: process.execPath,
			args: [ensureBuiltCli(), "mcp", "--cwd", tempDir()],
			env: cleanEnv(),
			stderr: "pipe",
		});
		const client = new Client({ name: "escapee-test", version: "1.0.0" });
		await client.connect(transport);
		const serverPid = transport.pid;
		const result = await client.callTool({
			name: "bash",
			arguments: {
				command: `(setsid env -i ${sleep} </dev/null >/dev/null 2>&1 &); ${waitUntilStarted(sleep)}; echo started`,
			},
		});
		expect(JSON.stringify(result.content)).toContain("started");
		expect(processesWithArgument(sleep).length).toBe(1);
		await client.close();
		// The server notices the closed stdin and exits; its escapee must be gone with it.
		const deadline = Date.now() + 10_000;
		while (serverPid !== null && isAlive(serverPid) && Date.now() < deadline) {
			await new Promise((resolve) => setTimeout(resolve, 50));
		}
		expect(serverPid !== null && isAlive(serverPid)).toBe(false);
		expect(await survivorsAfter(sleep)).toEqual([]);
	});

	it("a hook's setsid env -i child is gone when the hook ends, before the tool runs", { timeout: 30_000 }, async () => {
		const sleep = uniqueSleep();
		const home = join(tempDir(), "home");
		const project = join(tempDir(), "project");
		mkdirSync(join(home, ".toolbelt"), { recursive: true });
		mkdirSync(project);
		// The hook ends only once its child has left its process group and environment behind, so
		// the test does not depend on how fast the child gets there.
		const hookCommand = `setsid env -i ${sleep} </dev/null >/dev/null 2>&1 & ${waitUntilStarted(sleep)}; exit 0`;
		writeFileSync(
			join(home, ".toolbelt", "settings.json"),
			JSON.stringify({
				hooks: { PreToolUse: [{ matcher: "bash", hooks: [{ type: "command", command: hookCommand }] }] },
			}),
		);
		// `[s]leep` matches the sleep but not this command's own command line.
		const pattern = `[s]${sleep.slice(1).replaceAll(".", "\\.")}`;
		const command = `ps -eo args | grep -c '${pattern}' || true`;
		const run = await cli.run(["tool", "bash", JSON.stringify({ command }), "--cwd", project], {
			env: cleanEnv({ HOME: home }),
		});
		// The tool runs after the hook: by then the hook's child must be dead.
		expect(run.stdout.trim().split("\n")[0]).toBe("0");
		expect(await survivorsAfter(sleep)).toEqual([]);
	});

	it("without cgroups (the fallback), an escapee is reported to the model by pid and command", {
		timeout: 30_000,
	}, async () => {
		const sleep = uniqueSleep();
		const command = `(setsid env -i ${sleep} </dev/null >/dev/null 2>&1 &); ${waitUntilStarted(sleep)}; echo started`;
		const run = await cli.run(["tool", "bash", JSON.stringify({ command }), "--cwd", tempDir(), "--json"], {
			env: cleanEnv({ TOOLBELT_SHELL_CONTAINMENT: "process-group" }),
		});
		const result = JSON.parse(run.stdout) as {
			content: { text: string }[];
			details: { escapedProcesses?: { pid: number; command: string }[] };
		};
		const [escaped] = processesWithArgument(sleep);
		expect(escaped).toBeDefined();
		expect(result.details.escapedProcesses).toEqual([{ pid: escaped, command: sleep }]);
		expect(result.content[0]?.text).toContain(`Not tracked: pid ${escaped} (${sleep})`);
		expect(result.content[0]?.text).toContain(`kill ${escaped}`);
	});
});
