import { spawnSync } from "node:child_process";
import { monotonicMs } from "../../../engine/index.js";
import { findTrustedProgram } from "../programs/trusted-programs.js";
import { isRunning, readProcStat } from "./proc-stat.js";

/** Blocks the thread for `ms`: only for toolbelt's exit handlers, which cannot await. */
export function sleepSync(ms: number): void {
	Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * True once the process runs no more, looked at without the event loop: in an exit handler a
 * child's `exit` event never comes, and an ended child stays a zombie (nobody reaps it). Linux
 * reads `/proc`; elsewhere `ps` says (nothing for a process that is gone).
 */
function endedSync(pid: number): boolean {
	if (process.platform === "linux") {
		const stat = readProcStat(pid);
		return stat === undefined || !isRunning(stat);
	}
	const ps = findTrustedProgram("ps");
	if (ps === undefined) return true;
	const state = spawnSync(ps, ["-o", "stat=", "-p", String(pid)], { encoding: "utf8", timeout: 1000 }).stdout;
	return !/^\s*[^\sZ]/.test(state ?? "");
}

/**
 * Blocks until each of these processes (toolbelt's children) ended, or `timeoutMs` passed: for an
 * exit handler that must let children finish something (a remote clean-up) before the next one
 * tears down what they need (the connection).
 */
export function waitForEndsSync(pids: readonly number[], timeoutMs: number): void {
	const deadline = monotonicMs() + timeoutMs;
	let running = pids.filter((pid) => !endedSync(pid));
	while (running.length > 0 && monotonicMs() < deadline) {
		sleepSync(5);
		running = running.filter((pid) => !endedSync(pid));
	}
}
