import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { signalProcess, signalProcessGroup } from "../../../src/workspace/local/index.js";
import { readProcStat } from "../../../src/workspace/local/process/proc-stat.js";
import { ensureBuiltCli } from "../../cli/helpers/cli-binary.js";
import { testUsers, userPrefix } from "../../helpers/test-users.js";

const builtSignal = fileURLToPath(new URL("../../../dist/workspace/local/process/signal.js", import.meta.url));

/**
 * A child, run as the test user, that asks the built module to signal ids kill(2) reads as the
 * caller's own group or every process, and its own group by id, with \`process.kill\` recording
 * instead of sending; then signals a detached child's group for real. Prints what it saw.
 */
const childProgram = `
const { signalProcess, signalProcessGroup } = await import(process.argv[1]);
const { spawn } = await import("node:child_process");
const { readFileSync } = await import("node:fs");
const stat = readFileSync("/proc/self/stat", "latin1");
const group = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
const real = process.kill.bind(process);
const sent = [];
process.kill = (pid, signal) => { sent.push(pid); return true; };
const refused = [0, -1, group].map((id) => [signalProcess(id, "SIGKILL"), signalProcessGroup(id, "SIGKILL")]);
process.kill = real;
const child = spawn("sleep", ["30"], { detached: true, stdio: "ignore" });
const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve(signal)));
const signalled = signalProcessGroup(child.pid, "SIGKILL");
console.log(JSON.stringify({ refused, sent, signalled, signal: await exited }));
`;

/** This process's group id, as toolbelt reads it. */
const ownGroupId = (): number => readProcStat("self")?.groupId ?? Number.NaN;

afterEach(() => {
	vi.restoreAllMocks();
});

describe("signalProcess and signalProcessGroup: the one way toolbelt signals what it started", () => {
	it("send nothing for ids kill(2) reads as this process's group or every process, nor to toolbelt, its parent or its group", () => {
		// Recorded, never sent: were a check missing, nothing reaches the run.
		const kill = vi.spyOn(process, "kill").mockImplementation(() => true);
		// SIGCONT: were one let through, it would change nothing anywhere.
		for (const pid of [0, -1, -7, Number("") /* an empty line */, Number.NaN, 1.5, process.pid, process.ppid]) {
			expect(signalProcess(pid, "SIGCONT")).toBe(false);
			expect(signalProcessGroup(pid, "SIGCONT")).toBe(false);
		}
		expect(signalProcessGroup(ownGroupId(), "SIGCONT")).toBe(false);
		expect(kill).not.toHaveBeenCalled();
	});

	it("signals a child's process group, and says when nothing of it is left", async () => {
		const child = spawn("sh", ["-c", "sleep 30 & wait"], { detached: true, stdio: "ignore" });
		const pid = child.pid as number;
		expect(signalProcessGroup(pid, "SIGKILL")).toBe(true);
		const [, signal] = await once(child, "exit");
		expect(signal).toBe("SIGKILL");
		// The group's sleep died with it: no process of the group is left to signal.
		await vi.waitFor(() => expect(signalProcessGroup(pid, "SIGCONT")).toBe(false), { timeout: 5000 });
		expect(signalProcess(pid, "SIGCONT")).toBe(false);
	});

	describe.each(testUsers())("as %s", (user) => {
		it("refuse the same ids and signal a child's group, in a process of that user", () => {
			ensureBuiltCli();
			const [command = process.execPath, ...prefix] = [...userPrefix(user), process.execPath];
			const output = execFileSync(command, [...prefix, "--input-type=module", "-e", childProgram, builtSignal], {
				encoding: "utf8",
				timeout: 15_000,
			});
			expect(JSON.parse(output)).toEqual({
				refused: [
					[false, false],
					[false, false],
					[false, false],
				],
				sent: [],
				signalled: true,
				signal: "SIGKILL",
			});
		});
	});
});
