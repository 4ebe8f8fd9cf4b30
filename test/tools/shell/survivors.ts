import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { setTimeout as delay } from "node:timers/promises";
import { isOutputRelay } from "../../../src/workspace/local/shell/output-relay.js";

/** Environment variable the tests put on every command (through the tool's `env` option) to find its processes. */
export const TEST_MARKER_VARIABLE = "TOOLBELT_TEST_MARKER";

/** A fresh marker and the `env` option that applies it. */
export function newMarker(): { marker: string; env: Record<string, string> } {
	const marker = randomUUID();
	return { marker, env: { [TEST_MARKER_VARIABLE]: marker } };
}

interface LiveProcess {
	pid: number;
	groupId: number;
}

function liveProcesses(): LiveProcess[] {
	const found: LiveProcess[] = [];
	for (const entry of readdirSync("/proc")) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			const stat = readFileSync(`/proc/${entry}/stat`, "latin1");
			const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
			if (fields[0] === "Z" || fields[0] === "X") continue; // dead, waiting to be reaped
			found.push({ pid: Number(entry), groupId: Number(fields[2]) });
		} catch {
			// Exited meanwhile.
		}
	}
	return found;
}

/** Live (non-zombie) processes whose environment carries the test marker. */
export function processesWithMarker(marker: string): number[] {
	const needle = Buffer.from(`${TEST_MARKER_VARIABLE}=${marker}\0`);
	return liveProcesses()
		.filter(({ pid }) => {
			try {
				return readFileSync(`/proc/${pid}/environ`).includes(needle);
			} catch {
				return false;
			}
		})
		.map(({ pid }) => pid);
}

export { isOutputRelay };

/** Like `processesWithMarker`, without toolbelt's output relay: the command's own processes. */
export function commandProcessesWithMarker(marker: string): number[] {
	return processesWithMarker(marker).filter((pid) => !isOutputRelay(pid));
}

/** Live (non-zombie) members of a process group. */
export function processGroupMembers(groupId: number): number[] {
	return liveProcesses()
		.filter((process) => process.groupId === groupId)
		.map(({ pid }) => pid);
}

/** The process group of a live, non-zombie process, or undefined. */
export function processGroupOf(pid: number): number | undefined {
	return liveProcesses().find((process) => process.pid === pid)?.groupId;
}

/** True while `pid` is a live, non-zombie process. */
export function isAlive(pid: number): boolean {
	return liveProcesses().some((process) => process.pid === pid);
}

/** Waits until `check` holds, polling; returns whether it did within `timeoutMs`. */
export async function eventually(check: () => boolean, timeoutMs = 2000): Promise<boolean> {
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		if (check()) return true;
		await delay(25);
	}
	return check();
}

/** Kills leftovers of a failed test so they do not outlive the suite. */
export function killMarked(marker: string): void {
	for (const pid of processesWithMarker(marker)) {
		try {
			process.kill(pid, "SIGKILL");
		} catch {
			// Gone.
		}
	}
}

/**
 * Pids of live processes whose command line contains `text` (a unique argument such as
 * `sleep 30.<random>`). Unlike a pid a command prints, it also finds processes that ran in a
 * PID namespace of their own, where `$$` and `$!` are not the host's pids.
 */
export function processesWithArgument(text: string): number[] {
	const found: number[] = [];
	for (const entry of readdirSync("/proc")) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			const stat = readFileSync(`/proc/${entry}/stat`, "latin1");
			const state = stat.charAt(stat.lastIndexOf(")") + 2);
			if (state === "Z" || state === "X") continue;
			const commandLine = readFileSync(`/proc/${entry}/cmdline`, "latin1").replaceAll("\0", " ");
			if (commandLine.includes(text)) found.push(Number(entry));
		} catch {
			// Gone while listing.
		}
	}
	return found;
}

/** SIGKILLs every live process whose command line contains `text`: a failing test's cleanup. */
export function killProcessesWithArgument(text: string): void {
	for (const pid of processesWithArgument(text)) {
		try {
			process.kill(pid, "SIGKILL");
		} catch {
			// Gone already.
		}
	}
}

/** The cgroup v2 path of a live process (the `0::` line of /proc/PID/cgroup). */
export function cgroupOf(pid: number): string | undefined {
	try {
		return readFileSync(`/proc/${pid}/cgroup`, "utf8")
			.split("\n")
			.find((line) => line.startsWith("0::"))
			?.slice(3);
	} catch {
		return undefined;
	}
}

/** The directory of a cgroup path, through the cgroup2 mount this process sees. */
export function cgroupDirectory(path: string): string | undefined {
	for (const line of readFileSync("/proc/self/mountinfo", "utf8").split("\n")) {
		const fields = line.split(" ");
		const separator = fields.indexOf("-");
		if (fields[separator + 1] === "cgroup2" && fields[3] === "/") return `${fields[4]}${path}`;
	}
	return undefined;
}
