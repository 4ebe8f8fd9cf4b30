import { rmSync, statSync, unlinkSync } from "node:fs";
import { rm } from "node:fs/promises";
import { cgroupsInUse, killCommandCgroup, releaseAllCgroupsSync } from "./cgroup.js";
import { cgroupMembers, cgroupPopulated, removeCgroup, removeOnceEmptied } from "./cgroup-members.js";
import { readProcStat } from "./proc-stat.js";
import { atProcessEnd } from "./process-end.js";
import { findTreeProcesses, type ProcessTree, processGroupOf, terminateTree } from "./process-tree.js";
import { signalProcess, signalProcessGroup } from "./signal.js";

/** Processes a command left running when its shell exited. */
export interface BackgroundRun {
	/** The command's marker (its processes carry it in their environment). */
	marker: string;
	/** Its process group id. */
	groupId?: number;
	/** The shell's pid (processes of the run have later pids). */
	rootPid?: number;
	/** The command's cgroup, when it ran in one: then it alone says which processes are the run's. */
	cgroup?: string;
	/** The pids seen when the shell exited. */
	pids: number[];
}

/** Something else toolbelt started that must end with it: the background jobs of a session. */
export interface SessionCleanup {
	/** Ends it at once, synchronously (toolbelt is exiting). */
	killNow(): void;
	/** Ends it gracefully (`disposeShellProcesses`). */
	dispose(): Promise<void>;
}

/**
 * How long disposal gives a cgroup to empty after killing its processes, in ms; one that outlives it
 * is removed at toolbelt's exit with the rest.
 */
const disposalRemovalWaitMs = 1000;

const runs = new Set<BackgroundRun>();
const sessionCleanups = new Set<SessionCleanup>();
const outputFiles = new Set<string>();
/** Output files a running command still writes: never deleted to make room. */
const liveOutputFiles = new Set<string>();

/**
 * The processes of a run that are still alive: those carrying its marker, plus the recorded pids
 * that are still in its process group. The group itself is never signalled blindly: by now its id
 * may belong to someone else.
 */
function liveProcesses(run: BackgroundRun): number[] {
	if (run.cgroup !== undefined) return cgroupMembers(run.cgroup);
	const live = new Set(findTreeProcesses({ marker: run.marker, rootPid: run.rootPid }));
	for (const pid of run.pids) {
		const groupId = processGroupOf(pid);
		if (process.platform !== "linux" || (groupId !== undefined && groupId === run.groupId)) live.add(pid);
	}
	return [...live];
}

function killRunSync(run: BackgroundRun): void {
	if (run.cgroup !== undefined) killCommandCgroup(run.cgroup);
	for (const pid of liveProcesses(run)) signalProcess(pid, "SIGKILL");
}

function cleanUpSync(): void {
	for (const cleanup of sessionCleanups) cleanup.killNow();
	for (const run of runs) killRunSync(run);
	runs.clear();
	// Every command cgroup, also of commands still running: nothing toolbelt started outlives it.
	releaseAllCgroupsSync();
	for (const path of outputFiles) rmSync(path, { force: true });
	outputFiles.clear();
	liveOutputFiles.clear();
}

/** Cancels the registration of `cleanUpSync` at the process's end; undefined while not registered. */
let cancelAtEnd: (() => void) | undefined;

function installHandlers(): void {
	// First: the processes end before anything they could still use is taken away (a sandbox's
	// placeholders, removed under a command still running, would let it write there).
	cancelAtEnd ??= atProcessEnd(
		() => {
			cancelAtEnd = undefined;
			cleanUpSync();
		},
		{ first: true },
	);
}

function uninstallHandlers(): void {
	cancelAtEnd?.();
	cancelAtEnd = undefined;
}

function uninstallWhenIdle(): void {
	// While commands run in cgroups, toolbelt's exit must still end them.
	if (runs.size === 0 && outputFiles.size === 0 && sessionCleanups.size === 0 && !cgroupsInUse()) uninstallHandlers();
}

/** Forgets runs whose processes all ended by themselves, removing their cgroups. */
function pruneEndedRuns(): void {
	for (const run of runs) {
		if (run.cgroup !== undefined && !cgroupPopulated(run.cgroup) && removeCgroup(run.cgroup)) runs.delete(run);
	}
}

/** Keeps a command's background processes until toolbelt exits or `disposeShellProcesses` runs. */
export function registerBackgroundRun(run: BackgroundRun): void {
	pruneEndedRuns();
	runs.add(run);
	installHandlers();
}

/**
 * Makes toolbelt's exit (and `disposeShellProcesses`) end what `cleanup` holds, until the
 * returned function is called.
 */
export function registerSessionCleanup(cleanup: SessionCleanup): () => void {
	sessionCleanups.add(cleanup);
	installHandlers();
	return () => {
		sessionCleanups.delete(cleanup);
		uninstallWhenIdle();
	};
}

/**
 * True while the tree's shell still holds its group id: it exists, running or exited but not yet
 * reaped (toolbelt is its parent, and reaps nothing while this runs), so the id is no one else's.
 * A process that took over the pid after the shell was reaped is no child of toolbelt's (or one
 * that toolbelt's end kills anyway).
 */
function groupLedBy(tree: ProcessTree): boolean {
	if (tree.groupId === undefined || tree.rootPid === undefined) return false;
	const root = readProcStat(tree.rootPid);
	return root?.groupId === tree.groupId && root.parentPid === process.pid;
}

/**
 * Ends a command still running (`tree`, held in its process group and by its marker) if toolbelt
 * ends first, until the returned function is called once its run has settled (what it left running
 * is then registered as a run of its own). A cgroup's command needs none of this: every command
 * cgroup goes at toolbelt's end. Without one, a shell in its own process group outlived a toolbelt
 * ended by a signal (it gets no SIGHUP from a terminal).
 */
export function holdRunningCommand(tree: ProcessTree): () => void {
	return registerSessionCleanup({
		killNow: () => {
			// The group first, at once: a look for its processes misses a child forked after the look
			// began (its pid past the range, its environment still the shell's), which outlived the kill.
			if (groupLedBy(tree)) signalProcessGroup(tree.groupId as number, "SIGKILL");
			killRunSync({ ...tree, pids: [] });
		},
		dispose: () => terminateTree(tree, { graceMs: 0 }),
	});
}

/**
 * Makes sure toolbelt's exit and fatal signals end every contained command, also one still
 * running when toolbelt exits. Called when a command starts in a cgroup.
 */
export function ensureExitCleanup(): void {
	installHandlers();
}

/** How many full-output files are kept at most; older ones are deleted first. */
export const MAX_RETAINED_OUTPUT_FILES = 20;
/** How many bytes of full-output files are kept at most (2 GiB); older files are deleted first. */
export const MAX_RETAINED_OUTPUT_BYTES = 2 * 1024 ** 3;

function sizeOf(path: string): number {
	try {
		return statSync(path).size;
	} catch {
		return 0;
	}
}

/**
 * Deletes the oldest full-output files (never `newest`) while more than the retention limits are
 * kept, so a long session of large outputs cannot fill the temp disk.
 */
function enforceRetention(newest: string): void {
	const older = [...outputFiles].filter((path) => path !== newest && !liveOutputFiles.has(path));
	let count = outputFiles.size;
	let bytes = [...outputFiles].reduce((total, path) => total + sizeOf(path), 0);
	for (const path of older) {
		if (count <= MAX_RETAINED_OUTPUT_FILES && bytes <= MAX_RETAINED_OUTPUT_BYTES) break;
		bytes -= sizeOf(path);
		count--;
		outputFiles.delete(path);
		rmSync(path, { force: true });
	}
}

/**
 * Keeps a full-output temp file until toolbelt exits or `disposeShellProcesses` runs — at most
 * the newest `MAX_RETAINED_OUTPUT_FILES` files and `MAX_RETAINED_OUTPUT_BYTES` in all.
 */
export function registerOutputFile(path: string, options: { live?: boolean } = {}): void {
	outputFiles.add(path);
	if (options.live) liveOutputFiles.add(path);
	else enforceRetention(path);
	installHandlers();
}

/** A live output file (see `registerOutputFile`) is complete: it now counts toward the retention limits. */
export function settleOutputFile(path: string): void {
	if (!liveOutputFiles.delete(path)) return;
	if (outputFiles.has(path)) enforceRetention(path);
}

/** Forgets (and deletes) a full-output file that turned out not to be needed. */
export async function releaseOutputFile(path: string): Promise<void> {
	outputFiles.delete(path);
	liveOutputFiles.delete(path);
	await rm(path, { force: true });
	uninstallWhenIdle();
}

/**
 * `releaseOutputFile` for a small file, on this thread: unlinking a few kilobytes costs less than
 * the trip through the thread pool (and, on a process's first call, starting the pool).
 */
export function releaseSmallOutputFile(path: string): void {
	outputFiles.delete(path);
	liveOutputFiles.delete(path);
	// `unlinkSync`, not `rmSync`: the file is a file, and `rmSync`'s first use costs several
	// times as much (its options and folder handling), on a process's first call.
	try {
		unlinkSync(path);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
	}
	uninstallWhenIdle();
}

/** The pids of background processes started by shell commands that are still alive. */
export function runningBackgroundPids(): number[] {
	return [...runs].flatMap(liveProcesses);
}

/**
 * Ends every session's background jobs, stops every background process that bash or powershell commands left running (SIGTERM, then
 * SIGKILL after a short grace) and deletes the full-output temp files. Call it when disposing of
 * the tool set; toolbelt also does this by itself when its process exits or gets SIGINT/SIGTERM/SIGHUP.
 */
export async function disposeShellProcesses(): Promise<void> {
	await Promise.all([...sessionCleanups].map((cleanup) => cleanup.dispose().catch(() => {})));
	const pending = [...runs];
	runs.clear();
	const files = [...outputFiles];
	outputFiles.clear();
	liveOutputFiles.clear();
	await Promise.all(
		pending.map((run) => {
			const tree: ProcessTree = {
				marker: run.marker,
				rootPid: run.rootPid,
				...(run.cgroup !== undefined ? { cgroup: run.cgroup } : {}),
			};
			// Recorded pids that left the marker behind (env -i) are killed by pid.
			for (const pid of liveProcesses(run)) signalProcess(pid, "SIGTERM");
			return terminateTree(tree, { graceMs: 200 }).then(async () => {
				killRunSync(run);
				// Processes killed just now may still be exiting, and keep the cgroup populated until then.
				const cgroup = run.cgroup;
				if (cgroup !== undefined) await removeOnceEmptied(() => removeCgroup(cgroup), disposalRemovalWaitMs);
			});
		}),
	);
	await Promise.all(files.map((path) => rm(path, { force: true })));
	uninstallWhenIdle();
}
