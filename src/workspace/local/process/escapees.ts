import { execFileSync } from "node:child_process";
import { readFileSync, readlinkSync, realpathSync } from "node:fs";
import { sep } from "node:path";
import { monotonicMs } from "../../../engine/index.js";
import type { EscapedProcess } from "../../shell/exec-types.js";
import { requireTrustedProgram } from "../programs/trusted-programs.js";
import { isRunning, procPids, readProcStat } from "./proc-stat.js";

/**
 * Where no cgroup holds a command (Linux without a writable cgroup v2 hierarchy), a process that
 * starts its own session and clears its environment leaves the process group and the marker
 * behind, and toolbelt can neither find nor stop it. What toolbelt can still do is notice it and
 * say so: at the moment the shell exits, a daemon that double-forked is an orphan (its parent is
 * init, or a subreaper such as `systemd --user`) that was born during the call. Those are
 * reported to the model by pid and command, never killed (they may not be the command's). Since
 * no cgroup is writable here, the command's processes cannot leave toolbelt's own cgroup, so only
 * processes in it are considered; that keeps other services' and sessions' processes out.
 * Within that cgroup other programs start daemons too (an ssh ControlMaster of a remote
 * workspace, another agent's commands), so an orphan is claimed only on evidence that this call
 * started it: it still carries the call's marker, or it cleared its environment entirely (`env -i`,
 * which nothing else in the cgroup is expected to do) while working inside the call's folder.
 * Other POSIX systems (macOS, BSD) have none of cgroups, PID namespaces or a subreaper call Node
 * could use: there `ps` lists this user's orphans younger than the call.
 */

/** When a live process started (clock ticks since boot, Linux), or undefined. */
export function processStartTicks(pid: number | undefined): number | undefined {
	if (pid === undefined || process.platform !== "linux") return undefined;
	return readProcStat(pid)?.startTicks;
}

function cgroupsOf(pid: string): string | undefined {
	try {
		return readFileSync(`/proc/${pid}/cgroup`, "latin1");
	} catch {
		return undefined;
	}
}

function commandLineOf(pid: string): string {
	try {
		const text = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").trim();
		return text.length > 200 ? `${text.slice(0, 200)}…` : text;
	} catch {
		return "";
	}
}

/** Init, or a subreaper that adopts orphans (a service manager): the parents an escaped daemon ends up with. */
function isAdoptiveParent(pid: number): boolean {
	if (pid === 1) return true;
	try {
		const name = readFileSync(`/proc/${pid}/comm`, "latin1").trim();
		return name === "systemd" || name === "init";
	} catch {
		return false;
	}
}

/** What `findEscapedProcesses` looks for. */
export interface EscapeSearch {
	/** Start time of the command's shell (clock ticks since boot, Linux): escapees were born after it. */
	sinceTicks?: number;
	/** Start time of the command's shell (a `monotonicMs()` reading), where clock ticks are not available. */
	sinceMs?: number;
	/** The shell's pid: pids are handed out upwards, so escapees have larger ones (barring wrap-around). */
	rootPid?: number;
	/** Processes already known as the command's (tracked, or toolbelt's own). */
	known: readonly number[];
	/**
	 * The call's environment marker (`PROCESS_MARKER_VARIABLE`'s value): an orphan carrying it is
	 * the call's. Default: none (only orphans with an empty environment can be claimed).
	 */
	marker?: string;
	/**
	 * The call's working folder: an orphan with an empty environment is claimed only when it works
	 * in this folder or below it. Default: none (any folder).
	 */
	cwd?: string;
}

function environmentOf(pid: string): Buffer | undefined {
	try {
		return readFileSync(`/proc/${pid}/environ`);
	} catch {
		return undefined;
	}
}

function resolvedFolder(path: string): string {
	try {
		return realpathSync(path);
	} catch {
		return path;
	}
}

function worksInside(pid: string, folder: string): boolean {
	try {
		const cwd = readlinkSync(`/proc/${pid}/cwd`);
		return cwd === folder || cwd.startsWith(folder.endsWith(sep) ? folder : `${folder}${sep}`);
	} catch {
		return false;
	}
}

/**
 * Evidence that this call started the orphan: its environment carries the call's marker, or it is
 * empty (cleared on purpose to leave the marker behind) and the process works in the call's folder.
 * A process with some other environment was started by someone else (or stripped only the marker,
 * which cannot be told apart): claiming it would tell the model to kill a process not its own.
 */
function startedByCall(pid: string, search: EscapeSearch, folder: string | undefined): boolean {
	const environment = environmentOf(pid);
	if (environment === undefined) return false;
	if (search.marker !== undefined && environment.includes(`=${search.marker}\0`)) return true;
	return environment.length === 0 && (folder === undefined || worksInside(pid, folder));
}

/**
 * Orphans born since the command started that toolbelt does not track (Linux; empty elsewhere).
 * Only processes of this user are considered.
 */
export function findEscapedProcesses(search: EscapeSearch): EscapedProcess[] {
	if (process.platform === "win32") return [];
	if (process.platform !== "linux" || search.sinceTicks === undefined) return findEscapedWithPs(search);
	const sinceTicks = search.sinceTicks;
	const known = new Set([...search.known, process.pid]);
	const uid = process.getuid?.();
	const ownCgroups = cgroupsOf("self");
	const folder = search.cwd === undefined ? undefined : resolvedFolder(search.cwd);
	const found: EscapedProcess[] = [];
	for (const entry of procPids()) {
		const pid = Number(entry);
		if (known.has(pid) || (search.rootPid !== undefined && pid < search.rootPid)) continue;
		const stat = readProcStat(entry);
		if (!stat || !isRunning(stat) || stat.startTicks < sinceTicks) continue;
		if (!isAdoptiveParent(stat.parentPid) || !ownedBy(entry, uid) || cgroupsOf(entry) !== ownCgroups) continue;
		if (!startedByCall(entry, search, folder)) continue;
		const command = commandLineOf(entry);
		// An empty command line: the process is exiting (or a kernel thread), not an escapee.
		if (command !== "") found.push({ pid, command });
	}
	return found;
}

function ownedBy(pid: string, uid: number | undefined): boolean {
	if (uid === undefined) return true;
	try {
		const line = readFileSync(`/proc/${pid}/status`, "latin1")
			.split("\n")
			.find((text) => text.startsWith("Uid:"));
		return Number(line?.split(/\s+/)[1]) === uid;
	} catch {
		return false;
	}
}

/** Seconds from a `ps` elapsed time, `[[dd-]hh:]mm:ss`; NaN when unreadable. */
export function parseElapsedSeconds(text: string): number {
	const match = /^(?:(?:(\d+)-)?(\d+):)?(\d+):(\d+)$/.exec(text.trim());
	if (!match) return Number.NaN;
	const [, days, hours, minutes, seconds] = match;
	return ((Number(days ?? 0) * 24 + Number(hours ?? 0)) * 60 + Number(minutes)) * 60 + Number(seconds);
}

/**
 * The `ps` way (POSIX systems without `/proc`): this user's processes whose parent is init and
 * whose age is within the call's (to the second, so one second of slack).
 */
export function findEscapedWithPs(search: EscapeSearch): EscapedProcess[] {
	if (search.sinceMs === undefined) return [];
	const maxAge = Math.ceil((monotonicMs() - search.sinceMs) / 1000) + 1;
	const known = new Set([...search.known, process.pid]);
	const uid = process.getuid?.();
	let listing: string;
	try {
		listing = execFileSync(
			requireTrustedProgram("ps", "list processes"),
			["-A", "-o", "pid=", "-o", "ppid=", "-o", "uid=", "-o", "etime=", "-o", "args="],
			{
				encoding: "utf8",
				stdio: ["ignore", "pipe", "ignore"],
				timeout: 5000,
			},
		);
	} catch {
		return [];
	}
	const found: EscapedProcess[] = [];
	for (const line of listing.split("\n")) {
		const match = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line);
		if (!match) continue;
		const [, pid, parentPid, owner, elapsed, command] = match;
		if (known.has(Number(pid)) || Number(parentPid) !== 1) continue;
		if (uid !== undefined && Number(owner) !== uid) continue;
		if (!(parseElapsedSeconds(elapsed ?? "") <= maxAge)) continue;
		const text = (command ?? "").trim();
		found.push({ pid: Number(pid), command: text.length > 200 ? `${text.slice(0, 200)}…` : text });
	}
	return found;
}
