import { readFileSync } from "node:fs";
import type { EscapedProcess } from "../../shell/exec-types.js";
import { registerBackgroundRun } from "../process/background-registry.js";
import { removeEmptyCgroup, removeOnceEmptied } from "../process/cgroup-members.js";
import { type ProcessContainment, releaseContainment } from "../process/containment.js";
import { findEscapedProcesses, processStartTicks } from "../process/escapees.js";
import { findTreeProcesses, type ProcessTree, processGroupOf } from "../process/process-tree.js";
import { isOutputRelay } from "./output-relay.js";
import type { RelayChannel } from "./relay-channel.js";

/**
 * How long an exited command waits for the relay's pid, in ms. The relay writes it as it starts,
 * alongside the command, so only a very short command on a machine starved of CPU waits at all.
 */
const relayAnnouncementWaitMs = 1000;
/** How long a process seen in the middle of an `exec` as the shell exits is given to finish it, in ms. */
const exitingWaitMs = 20;
/**
 * How long a finished command's cgroup is given to empty before the call returns, in ms. A
 * process of the command that is still exiting (or a zombie not yet reaped) keeps the cgroup
 * populated for a moment, longer on a loaded machine; one that outlives this is removed at exit.
 */
const releaseWaitMs = 1000;
/** A pause inside a call: it keeps the process alive, as the call's own result is still to come. */
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Settles after `ms` without keeping the process alive (the race's other side, the relay's channel, does). */
const idleFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/**
 * True for a process whose command line reads empty (Linux): one between its memory and its new
 * program in an `exec` (the relay becoming `cat`), or a kernel thread. (An exiting process reads
 * empty too, but the listing leaves those out already: see `isRunning`.)
 */
function hasNoCommandLine(pid: number): boolean {
	if (process.platform !== "linux") return false;
	try {
		return readFileSync(`/proc/${pid}/cmdline`).length === 0;
	} catch {
		return false;
	}
}

/**
 * Leaves out processes that were gone or exiting when looked at again: the listing leaves out
 * exiting processes, but one may begin to exit between the listing and the report. A process
 * caught without a command line is looked at after a short wait: it was in an `exec`, and what it
 * became decides (the relay is recognised by its new name).
 */
async function stillRunning(pids: number[]): Promise<number[]> {
	if (pids.some(hasNoCommandLine)) await delay(exitingWaitMs);
	return process.platform === "linux" ? pids.filter((pid) => processGroupOf(pid) !== undefined) : pids;
}

/** When the shell started: clock ticks since boot (Linux) and wall-clock ms. */
export interface ShellStart {
	/** From `/proc/PID/stat`, where there is one. */
	sinceTicks?: number;
	/** A `monotonicMs()` reading, taken as the shell was spawned. */
	sinceMs: number;
	/** The command's working folder: an escapee that cleared its environment works there (or below). */
	cwd?: string;
}

/** Without a cgroup (and off Windows), when the shell started: escapees are looked for from then on. */
export function escapeSearchStart(
	containment: ProcessContainment,
	cwd: string,
	sinceMs: number,
): ShellStart | undefined {
	if (containment.mechanism !== "process-group" || process.platform === "win32") return undefined;
	const sinceTicks = processStartTicks(containment.tree.rootPid);
	return { sinceMs, cwd, ...(sinceTicks !== undefined ? { sinceTicks } : {}) };
}

/** What a command left running when its shell exited. */
export interface LeftRunning {
	/** Its background jobs (the relay excluded); registered, so they end with toolbelt. */
	backgroundPids: number[];
	/** Processes that escaped tracking (only without a cgroup), to report to the model. */
	escapedProcesses: EscapedProcess[];
}

/**
 * How long an exited command in a cgroup waits for its relay to end before it lists the cgroup,
 * in ms. The relay ends a moment after the shell unless a background job holds its pipe.
 */
const relayEndWaitMs = 5;

/**
 * The common end of a command in a cgroup: its relay ends right after its shell, and then the
 * cgroup is empty and removed in one system call (the kernel refuses while a process lives in it),
 * with no listing of its members. False when the relay is still open after `relayEndWaitMs`
 * (a background job holds its pipe) or the cgroup is not empty: the caller then lists it.
 */
export async function releasedWithRelay(tree: ProcessTree, relay: RelayChannel | undefined): Promise<boolean> {
	if (relay === undefined || tree.cgroup === undefined) return false;
	let ended = false;
	await Promise.race([relay.closed.then(() => (ended = true)), idleFor(relayEndWaitMs)]);
	return ended && removeEmptyCgroup(tree.cgroup);
}

/**
 * Whatever of the tree is still alive when the shell exits was left running on purpose (`server &`):
 * it is registered to end with toolbelt. The relay is toolbelt's own, and is stopped with the run.
 * With `shellStart` (no cgroup), orphans born since the shell started are looked for as well.
 */
export async function collectLeftRunning(
	tree: ProcessTree,
	relay: RelayChannel | undefined,
	shellStart: ShellStart | undefined,
): Promise<LeftRunning> {
	// The relay announces its pid as it starts, racing the command: a very short command may
	// exit before the pid is read.
	if (relay) await Promise.race([relay.known, idleFor(relayAnnouncementWaitMs)]);
	const alive = await stillRunning(findTreeProcesses(tree));
	const relayParts = relay ? alive.filter(isOutputRelay) : [];
	if (relay && relay.pid === undefined) relay.pid = relayParts[0];
	const backgroundPids = alive.filter((pid) => pid !== relay?.pid && !relayParts.includes(pid));
	if (backgroundPids.length > 0) registerBackgroundRun({ ...tree, pids: alive });
	const escapedProcesses =
		shellStart === undefined
			? []
			: findEscapedProcesses({ ...shellStart, rootPid: tree.rootPid, marker: tree.marker, known: alive });
	return { backgroundPids, escapedProcesses };
}

/**
 * When the run settles: keeps what must outlive the call (a relay still copying) in the registry,
 * which ends it at toolbelt's exit or disposal; otherwise removes the command's cgroup. Background
 * jobs were registered by `collectLeftRunning` already.
 */
export async function keepOrRelease(
	tree: ProcessTree,
	left: { background: boolean; openRelayPid: number | undefined },
): Promise<void> {
	if (left.background) return;
	if (left.openRelayPid !== undefined) {
		registerBackgroundRun({ ...tree, pids: [left.openRelayPid] });
		return;
	}
	// A process may still be exiting: what cannot be removed soon is removed at exit.
	if (!(await removeOnceEmptied(() => releaseContainment(tree), releaseWaitMs)))
		registerBackgroundRun({ ...tree, pids: [] });
}
