import { setTimeout as delay } from "node:timers/promises";
import { monotonicMs } from "../../../engine/index.js";
import { randomHex } from "../../random-hex.js";
import { ensureExitCleanup } from "./background-registry.js";
import { createCommandCgroup, joinCgroupScript, killCommandCgroup } from "./cgroup.js";
import { cgroupMembers, removeCgroup, removeEmptyCgroup } from "./cgroup-members.js";
import { inPidNamespace, pidNamespaceAvailable } from "./pid-namespace.js";
import {
	findTreeProcesses,
	PROCESS_MARKER_VARIABLE,
	type ProcessTree,
	type TerminateOptions,
	terminateTree,
} from "./process-tree.js";
import { signalProcessGroup } from "./signal.js";

/**
 * How a command's processes are kept together so that all of them can be found and ended:
 * - `cgroup`: its own cgroup v2 (Linux with a writable hierarchy); nothing the command starts can
 *   leave it, `setsid` and `env -i` included.
 * - `pid-namespace`: a PID namespace of its own (asked for by short-lived commands such as hooks,
 *   Linux where `unshare` is permitted); when the command's first process ends, the kernel ends
 *   every process in it. Background work cannot outlive the command, so the shell tools do not use it.
 * - `process-group`: its own process group plus an environment marker; a process that starts a
 *   new session and clears its environment is lost (see the README for the platforms).
 */
export type ContainmentMechanism = "cgroup" | "pid-namespace" | "process-group";

/** Options of `createProcessContainment`. */
export interface ContainmentOptions {
	/**
	 * Prefer a PID namespace over a cgroup where one can be made: for commands that must leave
	 * nothing running when they exit (hooks). Joining a cgroup waits for an RCU grace period
	 * (milliseconds, serialized across the machine), a new PID namespace does not. Default: false.
	 */
	preferPidNamespace?: boolean;
	/** A command cgroup made already (by `beginCgroupProbe`), used instead of a fresh one. Default: none. */
	cgroup?: string;
}

/** Where one command's processes are tracked (the same primitive for bash, powershell and hooks). */
export interface ProcessContainment {
	/** Which mechanism holds the command. */
	mechanism: ContainmentMechanism;
	/** The tree to find, signal and kill; `rootPid` and `groupId` are set by `attachRoot`. */
	tree: ProcessTree;
	/** Variables to add to the command's environment (the marker). */
	env: Record<string, string>;
	/**
	 * A POSIX `sh` line the command's first shell runs before it execs the command (it joins the
	 * cgroup, so every descendant is born inside); empty when there is nothing to join.
	 */
	joinScript: string;
}

/** Prepares the containment of one command: a fresh cgroup where possible, a fresh marker always. */
export function createProcessContainment(options: ContainmentOptions = {}): ProcessContainment {
	const marker = `${process.pid}-${randomHex(16)}`;
	if (options.preferPidNamespace && pidNamespaceAvailable()) {
		return {
			mechanism: "pid-namespace",
			tree: { marker, namespaced: true },
			env: { [PROCESS_MARKER_VARIABLE]: marker },
			joinScript: "",
		};
	}
	const cgroup = options.cgroup ?? createCommandCgroup();
	// A command still running when toolbelt exits ends with it.
	if (cgroup !== undefined) ensureExitCleanup();
	return {
		mechanism: cgroup === undefined ? "process-group" : "cgroup",
		tree: { marker, ...(cgroup !== undefined ? { cgroup } : {}) },
		env: { [PROCESS_MARKER_VARIABLE]: marker },
		joinScript: cgroup === undefined ? "" : joinCgroupScript(cgroup),
	};
}

/** Records the started shell: it leads its own process group (spawned `detached`). */
export function attachRoot(containment: ProcessContainment, pid: number | undefined): void {
	containment.tree.rootPid = pid;
	containment.tree.groupId = pid;
}

/**
 * The program and arguments that run `file args` inside the containment: through `/bin/sh`,
 * which joins the cgroup and then becomes the command (`exec`). Unchanged when there is nothing
 * to join.
 */
export function containedCommand(
	containment: ProcessContainment,
	file: string,
	args: readonly string[],
): { file: string; args: string[] } {
	if (containment.mechanism === "pid-namespace") return inPidNamespace(file, args);
	if (containment.joinScript === "") return { file, args: [...args] };
	return { file: "/bin/sh", args: ["-c", `${containment.joinScript}\nexec "$@"`, "toolbelt-join", file, ...args] };
}

/** Ends every process of the containment: SIGTERM, then SIGKILL after `graceMs` (see `terminateTree`). */
export function terminateContainment(tree: ProcessTree, options: TerminateOptions = {}): Promise<void> {
	return terminateTree(tree, options);
}

/** SIGKILLs every process of the containment at once, without a grace period. */
export async function killContainment(tree: ProcessTree): Promise<void> {
	if (tree.namespaced && tree.groupId !== undefined) return killNamespacedGroup(tree.groupId);
	if (tree.cgroup !== undefined) killCommandCgroup(tree.cgroup);
	// Most commands (every well-behaved hook) leave nothing: then there is nothing to wait for.
	if (findTreeProcesses(tree).length === 0) return;
	await terminateTree(tree, { graceMs: 0 });
}

/**
 * Removes the command's cgroup once no process is left in it; true when nothing remains to
 * release (also for a process-group containment). False while processes live in it.
 */
export function releaseContainment(tree: ProcessTree): boolean {
	if (tree.cgroup === undefined) return true;
	// Most commands leave nothing: the kernel, which refuses to remove a cgroup while a process
	// lives in it, is the check, in one system call. The listing runs only when it refuses.
	if (removeEmptyCgroup(tree.cgroup)) return true;
	// Zombies not yet reaped keep it populated; removal is tried anyway, and fails harmlessly.
	if (cgroupMembers(tree.cgroup).length > 0) return false;
	return removeCgroup(tree.cgroup);
}

/** How long a namespaced command's process group may take to vanish after SIGKILL, in ms. */
const NAMESPACE_KILL_WAIT_MS = 2000;

/**
 * SIGKILLs `unshare` and the namespace's first process (one process group); the kernel then ends
 * the rest of the namespace. No `/proc` scan is needed: nothing can have left the namespace.
 * Resolves once the group is gone (or after `NAMESPACE_KILL_WAIT_MS`).
 */
async function killNamespacedGroup(groupId: number): Promise<void> {
	const deadline = monotonicMs() + NAMESPACE_KILL_WAIT_MS;
	while (signalProcessGroup(groupId, "SIGKILL") && monotonicMs() < deadline) await delay(5);
}
