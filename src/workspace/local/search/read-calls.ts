import { readFileSync } from "node:fs";

/**
 * How far a running process has read, where the system says it: the read calls it made so far
 * (`syscr` of Linux's `/proc/<pid>/io`). ripgrep reads a small file in one call and its end in
 * another, a large one in 64 KiB steps, so the count measures the work done in a tree of many
 * files and in a few large ones alike, whatever the machine's load.
 */
export function readCallsOf(pid: number): number | undefined {
	let text: string;
	try {
		text = readFileSync(`/proc/${pid}/io`, "latin1");
	} catch {
		// Gone, or not ours to read.
		return undefined;
	}
	const match = /^syscr: (\d+)$/m.exec(text);
	return match ? Number(match[1]) : undefined;
}

let countable: boolean | undefined;

/** True when this system counts a process's read calls and lets this process read its own count. */
export function readCallsCountable(): boolean {
	countable ??= process.platform === "linux" && readCallsOf(process.pid) !== undefined;
	return countable;
}
