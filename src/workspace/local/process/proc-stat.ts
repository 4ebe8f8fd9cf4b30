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
