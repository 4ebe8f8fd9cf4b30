import { type Dirent, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { monotonicMs } from "../../../engine/index.js";
import { isRunning, readProcStat } from "./proc-stat.js";
import { signalProcess } from "./signal.js";

// What is done to one cgroup, given its folder: list, signal and kill its processes, tell whether
// any live there, remove it. No state: cgroup.ts decides which cgroups there are.

/** True for a zombie (dead, waiting for its parent to reap it), an exiting process, or a pid that is gone. */
function isDead(pid: string): boolean {
	const stat = readProcStat(pid);
	return stat === undefined || !isRunning(stat);
}

/**
 * Live processes of a cgroup and of the cgroups below it (a root command may create some). A
 * zombie, or a process in the middle of exiting, is still listed by the kernel until it is
 * reaped; it is left out, as it never runs again (see `isRunning`).
 */
export function cgroupMembers(cgroup: string): number[] {
	const found: number[] = [];
	const visit = (directory: string) => {
		let entries: Dirent[];
		try {
			for (const line of readFileSync(join(directory, "cgroup.procs"), "latin1").split("\n")) {
				if (line !== "" && !isDead(line)) found.push(Number(line));
			}
			entries = readdirSync(directory, { withFileTypes: true });
		} catch {
			return;
		}
		for (const entry of entries) if (entry.isDirectory()) visit(join(directory, entry.name));
	};
	visit(cgroup);
	return found;
}

/** True while a process lives in the cgroup or below it. */
export function cgroupPopulated(cgroup: string): boolean {
	try {
		return /^populated 1$/m.test(readFileSync(join(cgroup, "cgroup.events"), "latin1"));
	} catch {
		return false;
	}
}

/** Sends `signal` to every process of the cgroup (and below). */
export function signalCgroup(cgroup: string, signal: NodeJS.Signals): void {
	for (const pid of cgroupMembers(cgroup)) signalProcess(pid, signal);
}

/** SIGKILLs every process of the cgroup and below: by `cgroup.kill` when `canKill`, else one by one. */
export function killCgroup(cgroup: string, canKill: boolean): void {
	if (canKill) {
		try {
			// The kernel SIGKILLs every process below, also those forking meanwhile.
			writeFileSync(join(cgroup, "cgroup.kill"), "1");
			return;
		} catch {
			// Removed meanwhile, or refused: signal one by one.
		}
	}
	signalCgroup(cgroup, "SIGKILL");
}

/** Removes a cgroup that has no process and no cgroup below it; true when it is gone. */
export function removeEmptyCgroup(cgroup: string): boolean {
	try {
		rmdirSync(cgroup);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === "ENOENT";
	}
}

/** Removes a cgroup and the cgroups below it; true when it is gone. Fails (false) while populated. */
export function removeCgroup(cgroup: string): boolean {
	let entries: Dirent[] = [];
	try {
		entries = readdirSync(cgroup, { withFileTypes: true });
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === "ENOENT";
	}
	for (const entry of entries) if (entry.isDirectory()) removeCgroup(join(cgroup, entry.name));
	try {
		rmdirSync(cgroup);
		return true;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === "ENOENT";
	}
}

/**
 * Pauses between tries to remove a cgroup whose processes were just ended, in ms: short at first,
 * since the last of them (often the output relay, or a process killed a moment ago) is usually
 * reaped within a millisecond or two, and every try is one read of the folder.
 */
const removalRetryMs = [1, 1, 2, 3, 5];

/**
 * Calls `remove` (a removal of a cgroup, true once it is gone) until it succeeds or `waitMs` has
 * passed; true when it succeeded. A process that is still exiting, or a zombie not yet reaped,
 * keeps a cgroup populated for a moment after its kill (longer on a loaded machine), and the
 * kernel refuses to remove it until then.
 */
export async function removeOnceEmptied(remove: () => boolean, waitMs: number): Promise<boolean> {
	const deadline = monotonicMs() + waitMs;
	for (let attempt = 0; !remove(); attempt++) {
		if (monotonicMs() >= deadline) return false;
		const pause = removalRetryMs[Math.min(attempt, removalRetryMs.length - 1)] ?? 5;
		await new Promise<void>((resolve) => setTimeout(resolve, pause));
	}
	return true;
}
