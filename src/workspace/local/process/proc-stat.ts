import { readdirSync, readFileSync } from "node:fs";

/** The fields of `/proc/PID/stat` that the process scans read (Linux). */
export interface ProcStat {
	/** One letter: `R`, `S`, `Z` (zombie), `X` (dead)… */
	state: string;
	/** Parent pid. */
	parentPid: number;
	/** Process group id. */
	groupId: number;
	/** Start time, in clock ticks since boot. */
	startTicks: number;
	/** The kernel's per-process flags (`PF_*`), e.g. `PF_EXITING`. */
	flags: number;
	/** The signals pending for the process's first thread, as a bit mask (bit N-1 for signal N). */
	pendingSignals: number;
}

/** `PF_EXITING`: set as a process enters its exit, before it tears its memory down and turns zombie. */
const PF_EXITING = 0x4;
/** SIGKILL (9) in a mask of pending signals. */
const SIGKILL_PENDING = 1 << 8;

/**
 * True for a process that runs on: not a zombie (`Z`, dead and waiting to be reaped), not dead
 * (`X`), not exiting, and not killed. A process that has begun to exit never runs its program
 * again, but it stays listed (in `/proc`, in its cgroup, in its process group) until its teardown
 * is done: for a process with a few GB of memory, or on a loaded machine, a good part of a second.
 * Nor does one with a SIGKILL pending that the machine has not scheduled yet to act on it (it
 * begins to exit at its next turn on a CPU). Counting either made a finished command report "Still
 * running in the background" for a pid gone a moment later.
 */
export function isRunning(stat: ProcStat): boolean {
	return (
		stat.state !== "Z" &&
		stat.state !== "X" &&
		(stat.flags & PF_EXITING) === 0 &&
		(stat.pendingSignals & SIGKILL_PENDING) === 0
	);
}

/** A process's stat fields, or undefined when it is gone (or this is not Linux). */
export function readProcStat(pid: number | string): ProcStat | undefined {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
		// The command name in parentheses may itself contain spaces or parentheses: parse after the last one.
		const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
		return {
			state: fields[0] ?? "",
			parentPid: Number(fields[1]),
			groupId: Number(fields[2]),
			startTicks: Number(fields[19]),
			flags: Number(fields[6]),
			// Field 31, "signal": the first thread's pending signals, where a SIGKILL sent to the
			// process is put for every thread as it is sent.
			pendingSignals: Number(fields[28]),
		};
	} catch {
		return undefined;
	}
}

/** The pids listed in `/proc`, as its entry names; empty when it cannot be read. */
export function procPids(): string[] {
	let entries: string[];
	try {
		entries = readdirSync("/proc");
	} catch {
		return [];
	}
	return entries.filter((entry) => {
		const code = entry.charCodeAt(0);
		return code >= 48 && code <= 57;
	});
}
