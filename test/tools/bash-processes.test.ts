import { execFileSync } from "node:child_process";
import { dirname } from "node:path";
import { rgPath } from "@vscode/ripgrep";
import { afterEach, describe, expect, it } from "vitest";
import { createBashTool } from "../../src/tools/bash.js";
import { disposeShellProcesses } from "../../src/workspace/local/process/background-registry.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { bashWith, outputPaths } from "./shell/output-paths.js";
import { runTool } from "./shell/run-tool.js";
import {
	commandProcessesWithMarker,
	eventually,
	isAlive,
	killMarked,
	newMarker,
	processesWithMarker,
	processGroupMembers,
} from "./shell/survivors.js";

const markers: string[] = [];
function marked() {
	const created = newMarker();
	markers.push(created.marker);
	return created;
}

afterEach(async () => {
	await disposeShellProcesses();
	for (const marker of markers.splice(0)) killMarked(marker);
});

describe.each(outputPaths)("$name", ({ operations }) => {
	const bash = bashWith(operations);

	describe("bash: no hang on background work", () => {
		const tempDir = useTempDir();

		// The bounds below only tell "returned when the shell exited" from "waited for the job": they
		// sit far below what the job would take (60 s, or forever), to leave room for a loaded machine.
		it("returns when the shell exits, not when a background job closes the pipe", { timeout: 60_000 }, async () => {
			const { marker, env } = marked();
			const outcome = await runTool(bash(tempDir(), { env }), { command: "sleep 60 & echo done" });
			expect(outcome.ms).toBeLessThan(30_000);
			expect(outcome.isError).toBe(false);
			expect(outcome.text).toContain("done");
			// The job keeps running (it may be intended, like a dev server) and is reported.
			const [sleeper] = commandProcessesWithMarker(marker);
			expect(sleeper).toBeDefined();
			expect(outcome.details.backgroundPids).toContain(sleeper);
			expect(outcome.text).toContain(`pid ${sleeper}`);
		});

		it("lets a command wait for its own background jobs", async () => {
			const outcome = await runTool(bash(tempDir()), {
				command: "sleep 0.1 & sleep 0.2 & wait; echo after",
				timeout: 10,
			});
			expect(outcome.details.timedOut).toBeFalsy();
			expect(outcome.text).toBe("after");
			expect(outcome.details.backgroundPids).toEqual([]);
		});

		it("returns while a background loop keeps writing to the inherited pipe", async () => {
			const { env } = marked();
			const outcome = await runTool(bash(tempDir(), { env }), {
				command: "(while true; do echo x; sleep 0.1; done) & echo started",
			});
			expect(outcome.ms).toBeLessThan(15_000);
			expect(outcome.text).toContain("started");
			// Still running: the pipe is kept flowing, so the writer neither blocks nor dies of SIGPIPE.
			// Looked for by the pids the call reported: a subshell run by a standby shell (which runs a
			// plain bash command itself) carries the environment it was started with, not the marker.
			await new Promise((resolve) => setTimeout(resolve, 300));
			expect(outcome.details.backgroundPids.length).toBeGreaterThan(0);
			expect(outcome.details.backgroundPids.some(isAlive)).toBe(true);
		});

		it("returns when a writer that escaped tracking keeps the pipe busy", async () => {
			const { env } = marked();
			// Own session and no run marker: nothing can find it, and it never lets the pipe go idle.
			const outcome = await runTool(bash(tempDir(), { env }), {
				command: `setsid env -u TOOLBELT_SHELL_RUN sh -c 'while :; do echo x; sleep 0.05; done' & sleep 0.3; echo started`,
				timeout: 60,
			});
			expect(outcome.ms).toBeLessThan(8000);
			expect(outcome.isError).toBe(false);
			expect(outcome.text).toContain("started");
		});

		it("returns after starting a server with &, which keeps serving until disposal", async () => {
			const { marker, env } = marked();
			// The server keeps the inherited stdout pipe open and logs to it; it writes its port to a file
			// so the command can wait for it however slowly node starts on a loaded machine.
			const server = `${JSON.stringify(process.execPath)} -e "require('http').createServer((q, s) => s.end('hello')).listen(0, '127.0.0.1', function () { console.log('listening'); require('fs').writeFileSync('port', String(this.address().port)) })"`;
			const outcome = await runTool(bash(tempDir(), { env }), {
				command: `${server} & until [ -s port ]; do sleep 0.05; done; echo "started on $(cat port)"`,
			});
			expect(outcome.ms).toBeLessThan(10_000);
			expect(outcome.text).toContain("started on");
			const port = /started on (\d+)/.exec(outcome.text)?.[1];
			expect(port).toBeDefined();
			const response = await fetch(`http://127.0.0.1:${port}/`);
			expect(await response.text()).toBe("hello");
			expect(outcome.details.backgroundPids.length).toBeGreaterThan(0);

			await disposeShellProcesses();
			expect(await eventually(() => processesWithMarker(marker).length === 0)).toBe(true);
			for (const pid of outcome.details.backgroundPids) expect(isAlive(pid)).toBe(false);
		});
	});
});

describe("bash: no hang on input", () => {
	const tempDir = useTempDir();

	it.each([
		["cat", "cat; echo after-cat"],
		["read", "read x; echo read-status=$?"],
		["rg without a path", "rg foo; echo rg-status=$?"],
	])("%s sees empty stdin and returns at once", async (_name, command) => {
		const env = { ...marked().env, PATH: `${dirname(rgPath)}:${process.env.PATH ?? ""}` };
		const outcome = await runTool(createBashTool(tempDir(), { env }), { command });
		expect(outcome.ms).toBeLessThan(2000);
		expect(outcome.text).toMatch(/after-cat|read-status=1|rg-status=1/);
	});

	it("git commit without -m fails fast instead of opening an editor", async () => {
		const cwd = tempDir();
		execFileSync("git", ["init", "-q"], { cwd });
		execFileSync(
			"git",
			["-c", "user.email=t@example.com", "-c", "user.name=T", "commit", "-q", "--allow-empty", "-m", "first"],
			{
				cwd,
			},
		);
		const outcome = await runTool(createBashTool(cwd, { env: marked().env }), {
			command: "git -c user.email=t@example.com -c user.name=T commit --allow-empty",
		});
		expect(outcome.ms).toBeLessThan(5000);
		expect(outcome.isError).toBe(true);
		expect(outcome.details.exitCode).not.toBe(0);
		expect(outcome.text).toMatch(/editor/i);
	});

	it("runs with a non-interactive environment", async () => {
		const outcome = await runTool(createBashTool(tempDir(), { env: marked().env }), {
			command: 'echo "$PAGER|$GIT_PAGER|$GIT_TERMINAL_PROMPT|$CI|$GIT_EDITOR"',
		});
		expect(outcome.text).toContain("cat|cat|0|1|false");
	});
});

describe("bash: timeout and abort kill the whole tree", () => {
	const tempDir = useTempDir();

	it("kills a shell that ignores SIGTERM, with its grandchildren and setsid children", async () => {
		const { marker, env } = marked();
		const outcome = await runTool(createBashTool(tempDir(), { env }), {
			command: `echo before; bash -c 'sleep 100 & sleep 100' & setsid sleep 100 & trap "" TERM; sleep 100`,
			timeout: 1,
		});
		expect(outcome.ms).toBeLessThan(3000);
		expect(outcome.isError).toBe(true);
		expect(outcome.details.timedOut).toBe(true);
		expect(outcome.text).toContain("before");
		expect(outcome.text).toMatch(/timed out after 1 second;/);
		expect(processesWithMarker(marker)).toEqual([]);
		expect(processGroupMembers(outcome.details.pid ?? -1)).toEqual([]);
	});

	it("abort settles at once (not after the command's 100 s), kills everything and says the user cancelled", async () => {
		const { marker, env } = marked();
		const controller = new AbortController();
		let abortedAt = 0;
		const running = runTool(
			createBashTool(tempDir(), { env }),
			{ command: "echo ready; sleep 100 & setsid sleep 100 & sleep 100" },
			{
				signal: controller.signal,
				onUpdate: (text) => {
					if (!abortedAt && text.includes("ready")) {
						abortedAt = Date.now();
						controller.abort();
					}
				},
			},
		);
		const outcome = await running;
		const settledIn = Date.now() - abortedAt;
		expect(abortedAt).toBeGreaterThan(0);
		// The kill's grace is 200 ms; the bound is wide so that a loaded machine does not fail it,
		// and still far below the 100 s the command would run if the abort waited for it.
		expect(settledIn).toBeLessThan(10_000);
		expect(outcome.isError).toBe(true);
		expect(outcome.details.cancelled).toBe(true);
		expect(outcome.text).toContain("ready");
		expect(outcome.text).toMatch(/cancelled by the user/);
		expect(processesWithMarker(marker)).toEqual([]);
		expect(processGroupMembers(outcome.details.pid ?? -1)).toEqual([]);
	});

	it("abort also kills a tree that traps SIGTERM", async () => {
		const { marker, env } = marked();
		const controller = new AbortController();
		const running = runTool(
			createBashTool(tempDir(), { env }),
			{ command: `trap "" TERM; bash -c 'trap "" TERM; sleep 100' & sleep 100` },
			{ signal: controller.signal },
		);
		await eventually(() => commandProcessesWithMarker(marker).length >= 3);
		const abortedAt = Date.now();
		controller.abort();
		const outcome = await running;
		// The SIGKILL follows the SIGTERM after a 200 ms grace. The bound leaves a loaded machine
		// room (534 ms was seen at load 13) and still catches an abort that waits for the starved
		// relay's 3 s or for the command's 100 s.
		expect(Date.now() - abortedAt).toBeLessThan(2_000);
		expect(outcome.details.cancelled).toBe(true);
		expect(processesWithMarker(marker)).toEqual([]);
	});

	it("does not start a command when the signal is already aborted", async () => {
		const { marker, env } = marked();
		const controller = new AbortController();
		controller.abort();
		const outcome = await runTool(
			createBashTool(tempDir(), { env }),
			{ command: "sleep 100" },
			{ signal: controller.signal },
		);
		expect(outcome.isError).toBe(true);
		expect(outcome.text).toMatch(/cancelled by the user/);
		expect(processesWithMarker(marker)).toEqual([]);
	});
});
