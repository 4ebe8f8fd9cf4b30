// Setup file of every worker (vitest.config.ts): a signal from a test, or from the code it drives,
// that would reach the test run itself fails that call instead. A worker shares its process group
// with vitest's main process, npm and the CI script, so `process.kill(0, …)` (a pid parsed from an
// empty line is 0), `process.kill(-1, …)` (every process root may signal), or the group's id would
// end the whole run at once, leaving no failing test and no stack to read: one CI run ended so
// (SIGKILL, exit 137) with every finished file green. Signal 0 (a liveness check) stays allowed.
import { ChildProcess } from "node:child_process";
import { readProcStat } from "../../src/workspace/local/process/proc-stat.js";

/** Marks the guarded `process.kill`: a shared worker runs this file again for each test file. */
const guarded = Symbol.for("toolbelt.test.signal-guard");
/** This worker's process group id, where /proc tells it. */
const groupId = readProcStat("self")?.groupId;
const runner = process.ppid;

/** The targets whose signal would reach the run: its group, every process, vitest's main process. */
function reachesTheRun(pid: number): boolean {
	if (pid === 0 || pid === -1) return true;
	if (pid === runner || pid === -runner) return true;
	return groupId !== undefined && pid === -groupId;
}

if (!(guarded in process.kill)) {
	const originalKill = process.kill.bind(process);
	const guardedKill = (pid: number, signal?: string | number): true => {
		if (signal !== 0 && reachesTheRun(pid)) {
			throw new Error(
				`refused: process.kill(${pid}, ${String(signal ?? "SIGTERM")}) would signal the test run itself (pid 0 or -1, its process group or vitest's main process)`,
			);
		}
		return originalKill(pid, signal);
	};
	process.kill = Object.assign(guardedKill, { [guarded]: true });
}

// A child whose spawn failed keeps its handle until Node reports the failure on the next tick; a
// `kill` in between goes to a pid libuv never set (0 on Node 20: the run's whole group, as above).
// toolbelt signals children through `signalChild`, which sends nothing then; this fails any other.
if (!(guarded in ChildProcess.prototype.kill)) {
	const originalChildKill = ChildProcess.prototype.kill;
	const guardedChildKill = function (this: ChildProcess, signal?: NodeJS.Signals | number): boolean {
		if (this.pid === undefined && (this as unknown as { _handle?: unknown })._handle) {
			throw new Error(
				"refused: ChildProcess.kill on a child whose spawn failed, before Node reported it, would signal a pid libuv never set (0: the test run's process group)",
			);
		}
		return originalChildKill.call(this, signal);
	};
	ChildProcess.prototype.kill = Object.assign(guardedChildKill, { [guarded]: true });
}
