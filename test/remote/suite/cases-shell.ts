import { expect } from "vitest";
import { CANNOT_RUN_COMMANDS } from "../../../src/workspace/index.js";
import { until } from "../sshd-fixture.js";
import type { CaseContext, SuiteCase } from "./case-context.js";

// bash and the job tools: the command runs where the workspace is; a workspace that cannot run
// commands says so.

async function expectCannotRun(t: CaseContext, name: string, args: Record<string, unknown>): Promise<void> {
	const result = await t.call(name, args);
	expect(result.isError).toBe(true);
	expect(result.text).toContain(CANNOT_RUN_COMMANDS);
}

export const shellCases: SuiteCase[] = [
	{
		name: "bash runs in the folder, reports exit codes, and its writes land on the workspace's disk",
		run: async (t) => {
			if (!t.backend.canRun) return expectCannotRun(t, "bash", { command: "echo hi > made.txt" });
			const pwd = await t.call("bash", { command: "pwd; echo out; echo err >&2; echo made > made.txt" });
			expect(pwd.isError, pwd.text).toBe(false);
			expect(pwd.text).toContain(t.folder);
			expect(pwd.text).toMatch(/out\n(.|\n)*err/);
			expect(t.disk.read("made.txt")?.toString()).toBe("made\n");
			const failed = await t.call("bash", { command: "exit 3" });
			expect(failed.isError).toBe(true);
			expect(failed.text).toMatch(/code 3/);
		},
	},
	{
		name: "bash keeps the tail of a long output, and a timeout kills the whole process tree",
		run: async (t) => {
			if (!t.backend.canRun) return expectCannotRun(t, "bash", { command: "seq 1 100000" });
			const long = await t.call("bash", { command: "seq 1 100000" });
			expect(long.text).toContain("100000");
			expect(long.text).not.toMatch(/^1\n2\n/);
			expect(long.text).toMatch(/Full output/);
			const timedOut = await t.call("bash", { command: "sh -c 'sleep 300' & echo $! > child.pid; wait", timeout: 1 });
			expect(timedOut.text).toMatch(/timed out|timeout/i);
			const pid = t.disk.read("child.pid")?.toString().trim();
			expect(pid).toMatch(/^\d+$/);
			// Asked where the command ran: the child is gone there (or a zombie: a container's init
			// that is `sleep` never reaps the orphans it inherits).
			const probe =
				'for i in $(seq 1 100); do s=$(cut -d" " -f3 /proc/$1/stat 2>/dev/null); [ -z "$s" ] || [ "$s" = Z ] && { echo gone; exit; }; sleep 0.2; done; echo alive';
			const alive = await t.call("bash", { command: `sh -c '${probe}' sh ${pid}` });
			expect(alive.text).toContain("gone");
		},
	},
	{
		name: "a background job is read with bash_output, takes input on its stdin, and is stopped with bash_kill",
		run: async (t) => {
			if (!t.backend.canRun) return expectCannotRun(t, "bash", { command: "sleep 1", run_in_background: true });
			const started = await t.call("bash", {
				command: "echo started > job.txt; until [ -e go ]; do sleep 0.1; done; echo second; sleep 300",
				run_in_background: true,
			});
			expect(started.isError, started.text).toBe(false);
			const id = /job-\d+/.exec(started.text)?.[0];
			expect(id, started.text).toBeDefined();
			expect(await until(() => t.disk.read("job.txt")?.toString() === "started\n", 60_000)).toBe(true);
			t.disk.put("go", "");
			const output = await t.call("bash_output", { id, wait_seconds: 60 });
			expect(output.text).toContain("second");
			const killed = await t.call("bash_kill", { id });
			expect(killed.isError, killed.text).toBe(false);
			expect(killed.text).toMatch(/kill/i);
			// Its stdin stays open where it runs: a line sent with bash_output reaches it.
			const reader = await t.call("bash", { command: "read x; echo got:$x", run_in_background: true });
			const readerId = /job-\d+/.exec(reader.text)?.[0];
			expect(readerId, reader.text).toBeDefined();
			const answered = await t.call("bash_output", { id: readerId, input: "a line\n", wait_seconds: 60 });
			expect(answered.isError, answered.text).toBe(false);
			expect(answered.text).toContain("got:a line");
		},
	},
];
