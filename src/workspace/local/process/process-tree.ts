import { execFileSync, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { setTimeout as delay } from "node:timers/promises";
import { monotonicMs } from "../../../engine/index.js";
import { requireTrustedProgram } from "../programs/trusted-programs.js";
import { killCommandCgroup } from "./cgroup.js";
import { cgroupMembers, signalCgroup } from "./cgroup-members.js";
import { isRunning, procPids, readProcStat } from "./proc-stat.js";
import { signalProcess, signalProcessGroup } from "./signal.js";

/**
 * Name of the environment variable that marks every process of one command. Children inherit
 * it, so it finds processes that left the process group (`setsid`) or were reparented.
 */
export const PROCESS_MARKER_VARIABLE = "TOOLBELT_SHELL_RUN";

/**
 * The processes of one command: its cgroup where cgroups are used (Linux, see `cgroup.ts`),
 * otherwise its process group and its environment marker.
 */
export interface ProcessTree {
	/**
	 * Directory of the command's own cgroup v2. When set, it alone defines the tree: no process can
	 * leave it by `setsid` or by clearing its environment. Default: none (process group and marker).
	 */
	cgroup?: string;
	/**
	 * The command's first process leads a PID namespace of its own (see `pid-namespace.ts`), and
	 * the root (`unshare`) leads the process group: ending the group's processes ends everything,
	 * since the kernel kills the rest of a namespace when its first process ends. Default: false.
	 */
	namespaced?: boolean;
	/** Process group id (the shell's pid, since the shell leads its own group). */
	groupId?: number;
	/** Value of `PROCESS_MARKER_VARIABLE` in every process of the command. */
	marker: string;
	/**
	 * The shell's pid. Every process of the command was started after it, which narrows the search;
	 * on Windows the tree is killed from it with `taskkill /T`.
	 */
	rootPid?: number;
}

function carriesMarker(pid: string, needle: Buffer): boolean {
	try {
		return readFileSync(`/proc/${pid}/environ`).includes(needle);
	} catch {
		return false;
	}
}

/** The pid most recently handed out (Linux, from `/proc/loadavg`), or undefined. */
function lastAllocatedPid(): number | undefined {
	try {
		const fields = readFileSync("/proc/loadavg", "latin1").trim().split(" ");
		const last = Number(fields[4]);
		return Number.isInteger(last) ? last : undefined;
	} catch {
		return undefined;
	}
}

function findOnLinux(tree: ProcessTree): number[] {
	const needle = Buffer.from(`${PROCESS_MARKER_VARIABLE}=${tree.marker}\0`);
	const own = String(process.pid);
	// Pids are handed out in increasing order, so every descendant of the shell has a pid between
	// the shell's and the last one allocated, unless the counter wrapped around meanwhile. Looking
	// only there keeps the scan cheap on a machine with many processes.
	const lastPid = lastAllocatedPid();
	const rootPid = tree.rootPid;
	const inRange =
		rootPid !== undefined && lastPid !== undefined && lastPid >= rootPid
			? (pid: number) => pid >= rootPid && pid <= lastPid
			: () => true;
	const found: number[] = [];
	for (const entry of procPids()) {
		if (entry === own || !inRange(Number(entry))) continue;
		const status = readProcStat(entry);
		// Zombies are dead already, and exiting processes nearly so: they only wait to be reaped.
		if (!status || !isRunning(status)) continue;
		if (status.groupId === tree.groupId || carriesMarker(entry, needle)) found.push(Number(entry));
	}
	return found;
}

function findWithPs(tree: ProcessTree): number[] {
	if (tree.groupId === undefined) return [];
	try {
		const listing = execFileSync(
			requireTrustedProgram("ps", "list processes"),
			["-A", "-o", "pid=", "-o", "pgid=", "-o", "stat="],
			{
				encoding: "latin1",
				stdio: ["ignore", "pipe", "ignore"],
			},
		);
		const found: number[] = [];
		for (const line of listing.split("\n")) {
			const [pid, groupId, state] = line.trim().split(/\s+/);
			if (Number(groupId) === tree.groupId && !state?.startsWith("Z") && Number(pid) !== process.pid) {
				found.push(Number(pid));
			}
		}
		return found;
	} catch {
		return [];
	}
}

/**
 * The live processes of a command: the members of its cgroup when it has one; otherwise members of
 * its process group plus every process carrying its marker (Linux reads `/proc`; other POSIX
 * systems see the process group only). Zombies and exiting processes excluded.
 */
export function findTreeProcesses(tree: ProcessTree): number[] {
	if (tree.cgroup !== undefined) return cgroupMembers(tree.cgroup);
	if (process.platform === "win32") return [];
	if (process.platform === "linux") return findOnLinux(tree);
	return findWithPs(tree);
}

/**
 * Sends `signal` to every process of the tree: the members of its cgroup, or else the process
 * group and every process that carries the marker.
 */
export function signalTree(tree: ProcessTree, signal: NodeJS.Signals): void {
	if (process.platform === "win32") {
		if (tree.rootPid !== undefined) killWindowsTree(tree.rootPid);
		return;
	}
	if (tree.cgroup !== undefined) {
		if (signal === "SIGKILL") killCommandCgroup(tree.cgroup);
		else signalCgroup(tree.cgroup, signal);
		return;
	}
	if (tree.groupId !== undefined) signalProcessGroup(tree.groupId, signal);
	for (const pid of findTreeProcesses(tree)) signalProcess(pid, signal);
}

function killWindowsTree(pid: number): void {
	const killer = spawn("taskkill", ["/pid", String(pid), "/T", "/F"], { stdio: "ignore", windowsHide: true });
	killer.on("error", () => {});
}

/** How `terminateTree` proceeds. */
export interface TerminateOptions {
	/** Time between SIGTERM and SIGKILL, in ms. Default: 200. */
	graceMs?: number;
	/** How often to look for survivors during the grace period, in ms. Default: 20. */
	pollMs?: number;
	/**
	 * How long to wait, after SIGKILL, for the killed processes to leave the process table, in ms.
	 * Default: 2000. A process with a large heap (a language server) can take longer than a few
	 * polls to exit on a busy machine; a caller that resolves earlier would report it gone while it runs.
	 */
	killWaitMs?: number;
}

/**
 * Kills a whole command: SIGTERM to its cgroup (or group and marked processes), SIGKILL to whatever is still
 * alive after a short grace (processes that trap or ignore SIGTERM), repeated for processes that
 * forked in between. Resolves when no process of the tree is left (or after `killWaitMs` of SIGKILL rounds).
 */
export async function terminateTree(tree: ProcessTree, options: TerminateOptions = {}): Promise<void> {
	const graceMs = options.graceMs ?? 200;
	const pollMs = options.pollMs ?? 20;
	if (process.platform === "win32") {
		signalTree(tree, "SIGKILL");
		return;
	}
	signalTree(tree, "SIGTERM");
	const deadline = monotonicMs() + graceMs;
	while (monotonicMs() < deadline) {
		await delay(pollMs);
		if (findTreeProcesses(tree).length === 0) return;
	}
	const killDeadline = monotonicMs() + (options.killWaitMs ?? 2000);
	do {
		signalTree(tree, "SIGKILL");
		await delay(10);
		if (findTreeProcesses(tree).length === 0) return;
	} while (monotonicMs() < killDeadline);
}

/** The process group of a running process, or undefined when it is gone or exiting (or the platform cannot tell cheaply). */
export function processGroupOf(pid: number): number | undefined {
	if (process.platform !== "linux") return undefined;
	const status = readProcStat(pid);
	if (!status || !isRunning(status)) return undefined;
	return status.groupId;
}
