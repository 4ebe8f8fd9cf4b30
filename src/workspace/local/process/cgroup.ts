import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { monotonicMs } from "../../../engine/index.js";
import { randomHex } from "../../random-hex.js";
import { pidInUse } from "../../shell/pid-in-use.js";
import { cgroupPopulated, killCgroup, removeCgroup, signalCgroup } from "./cgroup-members.js";
import { sleepSync } from "./exit-wait.js";

/**
 * cgroup v2 containment of shell commands (Linux). Each command runs in its own cgroup under one
 * cgroup per toolbelt process (`toolbelt-<pid>-<random>`, beside toolbelt's own cgroup's other
 * children). A process cannot leave a cgroup by `setsid`, by clearing its environment or by
 * double-forking, so the cgroup lists every process the command started; `cgroup.kill` (Linux
 * 5.14+) ends them all at once. Only a process with write access to another cgroup's
 * `cgroup.procs` (root, or the owner of a delegated subtree) can move itself out on purpose.
 */

/** Set to `process-group` to run commands without cgroups (the process group and marker fallback). */
export const CONTAINMENT_VARIABLE = "TOOLBELT_SHELL_CONTAINMENT";

interface CgroupBase {
	/** Directory of toolbelt's own parent cgroup for its commands. */
	path: string;
	/** True when the kernel offers `cgroup.kill`. */
	canKill: boolean;
}

/** undefined: not tried yet; null: no writable cgroup v2 hierarchy here. */
let base: CgroupBase | null | undefined;
let runCounter = 0;

/** Mountinfo escapes spaces and similar bytes as `\040`-style octal. */
function decodeMountField(field: string): string {
	return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}

/** The cgroup v2 mounts: the hierarchy path each one shows (its root) and where it is mounted. */
function cgroup2Mounts(): { root: string; mountPoint: string }[] {
	let text: string;
	try {
		text = readFileSync("/proc/self/mountinfo", "utf8");
	} catch {
		return [];
	}
	const mounts: { root: string; mountPoint: string }[] = [];
	for (const line of text.split("\n")) {
		const fields = line.split(" ");
		const separator = fields.indexOf("-");
		if (separator === -1 || fields[separator + 1] !== "cgroup2") continue;
		const root = fields[3];
		const mountPoint = fields[4];
		if (root !== undefined && mountPoint !== undefined) {
			mounts.push({ root: decodeMountField(root), mountPoint: decodeMountField(mountPoint) });
		}
	}
	return mounts;
}

/** Directory of this process's own cgroup v2, reached through a mount, or undefined. */
export function ownCgroupDirectory(): string | undefined {
	let own: string | undefined;
	try {
		own = readFileSync("/proc/self/cgroup", "utf8")
			.split("\n")
			.find((line) => line.startsWith("0::"))
			?.slice(3);
	} catch {
		return undefined;
	}
	if (own === undefined || own.endsWith(" (deleted)")) return undefined;
	for (const { root, mountPoint } of cgroup2Mounts()) {
		if (root === "/") return join(mountPoint, own);
		if (own === root || own.startsWith(`${root}/`)) return join(mountPoint, own.slice(root.length));
	}
	return undefined;
}

/**
 * Removes what dead toolbelt processes left beside us (a toolbelt killed by SIGKILL cannot clean
 * up): their commands were meant to end with them, so they are killed, and the cgroups removed.
 */
function sweepStale(parent: string): void {
	let entries: string[];
	try {
		entries = readdirSync(parent);
	} catch {
		return;
	}
	for (const entry of entries) {
		const match = /^toolbelt-(\d+)-[0-9a-f]+$/.exec(entry);
		if (!match || pidInUse(Number(match[1]))) continue;
		const path = join(parent, entry);
		killCgroup(path, existsSync(join(path, "cgroup.kill")));
		removeCgroup(path);
	}
}

/**
 * Moves a throw-away `sh` into a cgroup: creating a directory may be allowed where moving a
 * process is not (the common ancestor's `cgroup.procs` must be writable too).
 */
function canMoveInto(directory: string): boolean {
	try {
		execFileSync("/bin/sh", ["-c", 'printf "%s\\n" "$$" > "$1"', "sh", join(directory, "cgroup.procs")], {
			stdio: "ignore",
			timeout: 5000,
		});
		return true;
	} catch {
		return false;
	}
}

/** This process's cgroup directory, made and not yet proven usable, and the cgroup it sits in. */
interface MadeBase {
	path: string;
	parent: string;
}

/**
 * Made by `beginCgroupProbe` while a process started by the caller tries to join a command cgroup
 * in it; `settleCgroupProbe` (or the next synchronous use, which probes itself) decides.
 */
let tentative: MadeBase | undefined;

function makeBaseDirectory(): MadeBase | undefined {
	if (process.platform !== "linux" || process.env[CONTAINMENT_VARIABLE] === "process-group") return undefined;
	if (!existsSync("/bin/sh")) return undefined;
	const parent = ownCgroupDirectory();
	if (parent === undefined) return undefined;
	const path = join(parent, `toolbelt-${process.pid}-${randomHex(4)}`);
	try {
		mkdirSync(path);
	} catch {
		return undefined;
	}
	return { path, parent };
}

/** How long after the base is settled the sweep of dead toolbelt processes' cgroups runs, in ms. */
const sweepDelayMs = 250;
/** The sweep still to come: it runs at toolbelt's exit at the latest. */
let pendingSweep: { timer: NodeJS.Timeout; run: () => void } | undefined;

/**
 * Sweeps after `sweepDelayMs`, off the path of the call that settled the base (the first standby's
 * answer arrives while that call prepares): it reads every folder beside toolbelt's own cgroup.
 */
function sweepLater(parent: string): void {
	const run = () => {
		if (pendingSweep?.run !== run) return;
		clearTimeout(pendingSweep.timer);
		pendingSweep = undefined;
		sweepStale(parent);
	};
	pendingSweep = { timer: setTimeout(run, sweepDelayMs).unref(), run };
}

/** The base once a process could (or could not) be moved into a cgroup below it. */
function settleBase(made: MadeBase, movable: boolean): CgroupBase | null {
	if (!movable) {
		removeCgroup(made.path);
		return null;
	}
	sweepLater(made.parent);
	return { path: made.path, canKill: existsSync(join(made.path, "cgroup.kill")) };
}

/** Moves a throw-away `sh` into a fresh cgroup below `made` (blocking: the synchronous path). */
function probeSync(made: MadeBase): boolean {
	const probe = join(made.path, "probe");
	let movable = false;
	try {
		mkdirSync(probe);
		movable = canMoveInto(probe);
	} catch {
		movable = false;
	}
	removeCgroup(probe);
	return movable;
}

function createBase(): CgroupBase | null {
	const made = tentative ?? makeBaseDirectory();
	tentative = undefined;
	return made === undefined ? null : settleBase(made, probeSync(made));
}

/**
 * Starts deciding whether commands run in cgroups without blocking the event loop (the
 * synchronous probe waits for a process start and a move's RCU grace period): makes this
 * process's cgroup and one command cgroup in it, and returns that command cgroup. The caller
 * starts a process that tries to join it and reports with `settleCgroupProbe`; until then a
 * synchronous use decides by itself. Undefined when decided already, being decided, or when
 * there is no cgroup to try.
 */
export function beginCgroupProbe(): string | undefined {
	if (base !== undefined || tentative !== undefined) return undefined;
	const made = makeBaseDirectory();
	if (made === undefined) {
		base = null;
		return undefined;
	}
	const path = join(made.path, `run-${++runCounter}`);
	try {
		mkdirSync(path);
	} catch {
		removeCgroup(made.path);
		base = null;
		return undefined;
	}
	tentative = made;
	return path;
}

/**
 * The answer of the process `beginCgroupProbe` was for: whether it joined its cgroup. Returns
 * true when commands run in cgroups (decided now, or before by a synchronous use).
 */
export function settleCgroupProbe(joined: boolean): boolean {
	if (tentative !== undefined) {
		base = settleBase(tentative, joined);
		tentative = undefined;
	}
	return base !== undefined && base !== null;
}

function currentBase(): CgroupBase | null {
	if (base === undefined) base = createBase();
	return base;
}

/** True once a command cgroup hierarchy of this process exists (until it is released at exit). */
export function cgroupsInUse(): boolean {
	return base !== undefined && base !== null;
}

/** True when commands run in cgroups on this machine (decided once, at first use). */
export function cgroupsAvailable(): boolean {
	return currentBase() !== null;
}

/** A command cgroup made ahead by `prepareCommandCgroup`, never used yet. */
let spare: string | undefined;

function makeCommandCgroup(current: CgroupBase): string | undefined {
	const path = join(current.path, `run-${++runCounter}`);
	try {
		mkdirSync(path);
		return path;
	} catch {
		return undefined;
	}
}

/**
 * Creates a fresh cgroup for one command (or hands over the one made ahead), or returns undefined
 * where cgroups cannot be used (the caller falls back to process groups).
 */
export function createCommandCgroup(): string | undefined {
	const current = currentBase();
	if (!current) return undefined;
	const made = spare;
	spare = undefined;
	if (made !== undefined && existsSync(made)) return made;
	return makeCommandCgroup(current);
}

/**
 * Makes the next command's cgroup now, where cgroups are in use. Making one takes the hierarchy's
 * lock, which a process joining a cgroup holds through an RCU grace period (10-30 ms): made at a
 * moment when no join of this process is under way, the next `createCommandCgroup` waits for none.
 */
export function prepareCommandCgroup(): void {
	if (spare !== undefined || !base) return;
	spare = makeCommandCgroup(base);
}

/** Removes the cgroup made ahead, if any (when the shells that would have used it are ended). */
export function discardPreparedCgroup(): void {
	if (spare !== undefined) removeCgroup(spare);
	spare = undefined;
}

/** What a shell that could not join its command's cgroup says (on stderr) before it exits with 125. */
const refusal = `{ echo "toolbelt: could not move the command into its cgroup, so it was not run. Run it again; if this persists, the user can set ${CONTAINMENT_VARIABLE}=process-group to run commands without cgroups." >&2; exit 125; }`;

/**
 * A POSIX `sh` line that moves the shell running it into `cgroup` (before it execs the command, so
 * everything the command starts is born inside). If that fails, the shell exits with 125 and says
 * why: running the command untracked would be a silent downgrade.
 */
export function joinCgroupScript(cgroup: string): string {
	return `${moveIntoCgroup(cgroup, "$$")} || ${refusal}`;
}

/**
 * The halves of `joinCgroupScript` for a shell that joins long before it runs its command (a
 * standby shell): `join` moves it and remembers a failure; `refuseUnlessJoined`, run once the
 * command's output goes where the model reads it, refuses as `joinCgroupScript` does. `joinSubshell`
 * moves a bash subshell of it (its output relay, started before the shell joins) and ignores a
 * failure: that subshell stays in the shell's process group.
 */
export function deferredJoinCgroupScript(cgroup: string): {
	join: string;
	refuseUnlessJoined: string;
	joinSubshell: string;
} {
	return {
		join: `${moveIntoCgroup(cgroup, "$$")} || toolbelt_not_joined=1`,
		refuseUnlessJoined: `if [ -n "$toolbelt_not_joined" ]; then ${refusal}; fi`,
		joinSubshell: moveIntoCgroup(cgroup, "$BASHPID"),
	};
}

/** Shell text that writes the pid `pid` (a shell expression) into `cgroup`, quietly. */
function moveIntoCgroup(cgroup: string, pid: string): string {
	const procs = `'${join(cgroup, "cgroup.procs").replaceAll("'", `'\\''`)}'`;
	return `printf '%s\\n' "${pid}" 2>/dev/null > ${procs}`;
}

/** SIGKILLs every process of the cgroup and below (`cgroup.kill` where the kernel has it). */
export function killCommandCgroup(cgroup: string): void {
	// Not `currentBase()`: while a probe is under way, that would decide by the blocking probe.
	killCgroup(cgroup, base?.canKill ?? existsSync(join(cgroup, "cgroup.kill")));
}

/** How long toolbelt's exit waits at most for its commands' killed processes to be gone. */
const exitWaitMs = 2000;

/**
 * At toolbelt's exit: kills every process of every command cgroup (background jobs, and commands
 * still running), waits briefly for them to die and removes the cgroups. Synchronous.
 */
export function releaseAllCgroupsSync(): void {
	pendingSweep?.run();
	// A probe still under way at exit: its cgroup (and the process trying to join) goes too.
	const current =
		base ?? (tentative && { path: tentative.path, canKill: existsSync(join(tentative.path, "cgroup.kill")) });
	if (!current) return;
	const { path, canKill } = current;
	killCgroup(path, canKill);
	// SIGKILLed processes still have to be scheduled to die; on a loaded machine (a CI runner's
	// full test suite) that took longer than half a second, and the cgroup outlived toolbelt.
	const deadline = monotonicMs() + exitWaitMs;
	while (cgroupPopulated(path) && monotonicMs() < deadline) {
		sleepSync(5);
		if (!canKill) signalCgroup(path, "SIGKILL");
	}
	if (removeCgroup(path)) {
		base = undefined;
		tentative = undefined;
		spare = undefined;
	}
}
