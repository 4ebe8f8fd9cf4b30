import type { ChildProcess } from "node:child_process";
import { readProcStat } from "./proc-stat.js";

/**
 * The one way toolbelt signals a process or a process group it started. `kill(2)` reads a pid of 0
 * as "my own process group" and -1 as "every process I may signal": a pid parsed from an empty
 * line (`Number("")` is 0) or a negated one would end toolbelt with the shell, pipeline or CI job
 * that started it, or, as root, nearly everything on the machine. Such ids, and toolbelt's own
 * process group, are refused here rather than at each call site.
 */

/** toolbelt's own process group id (Linux: /proc), read once; undefined where unknown. */
let ownGroup: number | null | undefined;

function ownGroupId(): number | undefined {
	if (ownGroup === undefined) {
		// No /proc (macOS): the group is left unchecked; ids of 0 and below are still refused.
		const group = readProcStat("self")?.groupId;
		ownGroup = group !== undefined && Number.isSafeInteger(group) && group > 0 ? group : null;
	}
	return ownGroup ?? undefined;
}

/**
 * True for the id of one process that may be one toolbelt started: a positive integer, not toolbelt
 * itself, its parent or the leader of its own process group (the shell or job that started it).
 */
function isOneProcess(pid: number): boolean {
	return Number.isSafeInteger(pid) && pid > 0 && pid !== process.pid && pid !== process.ppid && pid !== ownGroupId();
}

/**
 * Sends `signal` to one process. False when it is gone or not this user's, and when `pid` names no
 * process toolbelt may have started (0, negative, not an integer, toolbelt's own pid, its parent's,
 * its group leader's): nothing is sent then.
 */
export function signalProcess(pid: number, signal: NodeJS.Signals): boolean {
	if (!isOneProcess(pid)) return false;
	try {
		process.kill(pid, signal);
		return true;
	} catch {
		return false;
	}
}

/**
 * Sends `signal` to a child toolbelt spawned. False, with nothing sent, when its spawn failed (it
 * has no pid): until Node reports the failure on the next tick, the child's handle stays open, and
 * Node 20 then signals pid 0, which `kill(2)` reads as toolbelt's own process group, taking the
 * shell, the MCP client or the CI job that started toolbelt with it (a standby shell whose folder
 * had just been removed killed a whole CI run so). Every `ChildProcess` is signalled through here.
 */
export function signalChild(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): boolean {
	if (child.pid === undefined) return false;
	return child.kill(signal);
}

/**
 * Sends `signal` to every process of the group `groupId` leads (a child spawned detached). False
 * when no process of it is left, and when `groupId` is no child's group (0, negative, not an
 * integer, toolbelt's own group or its parent's): nothing is sent then.
 */
export function signalProcessGroup(groupId: number, signal: NodeJS.Signals): boolean {
	if (!isOneProcess(groupId)) return false;
	try {
		process.kill(-groupId, signal);
		return true;
	} catch {
		return false;
	}
}

/** How long `stopProcess` waits for the stop to take effect, in ms. */
const STOP_WAIT_MS = 50;

/**
 * Stops `pid` (SIGSTOP) and waits, at most `STOP_WAIT_MS`, until it has stopped or is gone: a
 * stopped process forks no more, so the children it has are then all it will have (a fork under
 * way when the signal came is either done or undone). For a kill of a process and its children
 * that reads the children first. False when nothing was sent (see `signalProcess`).
 */
export function stopProcess(pid: number): boolean {
	if (!signalProcess(pid, "SIGSTOP")) return false;
	const pause = new Int32Array(new SharedArrayBuffer(4));
	for (let waited = 0; waited < STOP_WAIT_MS; waited++) {
		const state = readProcStat(pid)?.state;
		if (state === undefined || state === "T" || state === "Z" || state === "X") return true;
		Atomics.wait(pause, 0, 0, 1);
	}
	return true;
}
