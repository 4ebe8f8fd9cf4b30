import { randomUUID } from "node:crypto";
import { ensureExitCleanup } from "./background-registry.js";
import { cgroupMembers, createCommandCgroup, joinCgroupScript, killCommandCgroup, removeCgroup } from "./cgroup.js";
import {
	findTreeProcesses,
	PROCESS_MARKER_VARIABLE,
	type ProcessTree,
	type TerminateOptions,
	terminateTree,
} from "./process-tree.js";

/**
 * How a command's processes are kept together so that all of them can be found and ended:
 * - `cgroup`: its own cgroup v2 (Linux with a writable hierarchy); nothing the command starts can
 *   leave it, `setsid` and `env -i` included.
 * - `process-group`: its own process group plus an environment marker; a process that starts a
 *   new session and clears its environment is lost (see the README for the platforms).
 */
export type ContainmentMechanism = "cgroup" | "process-group";

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
export function createProcessContainment(): ProcessContainment {
	const marker = `${process.pid}-${randomUUID()}`;
	const cgroup = createCommandCgroup();
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
	if (containment.joinScript === "") return { file, args: [...args] };
	return { file: "/bin/sh", args: ["-c", `${containment.joinScript}\nexec "$@"`, "toolbelt-join", file, ...args] };
}

/** Ends every process of the containment: SIGTERM, then SIGKILL after `graceMs` (see `terminateTree`). */
export function terminateContainment(tree: ProcessTree, options: TerminateOptions = {}): Promise<void> {
	return terminateTree(tree, options);
}

/** SIGKILLs every process of the containment at once, without a grace period. */
export async function killContainment(tree: ProcessTree): Promise<void> {
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
	// Zombies not yet reaped keep it populated; removal is tried anyway, and fails harmlessly.
	if (cgroupMembers(tree.cgroup).length > 0) return false;
	return removeCgroup(tree.cgroup);
}
