import type { ChildProcess } from "node:child_process";
import { fstatSync } from "node:fs";
import type { Readable } from "node:stream";
import { monotonicMs } from "../../../engine/index.js";
import type { ShellFileExecResult, ShellRunHandle } from "../../shell/exec-types.js";
import { pipeStdinWriter } from "../../shell/stdin-writer.js";
import { holdRunningCommand } from "../process/background-registry.js";
import {
	attachRoot,
	createProcessContainment,
	type ProcessContainment,
	releaseContainment,
} from "../process/containment.js";
import { findTreeProcesses, signalTree, terminateTree } from "../process/process-tree.js";
import { collectLeftRunning, escapeSearchStart, keepOrRelease, releasedWithRelay } from "./left-running.js";
import { type ExecRequest, startProcess } from "./process-start.js";
import { readRelayAnnouncement, relayCaughtUp } from "./relay-channel.js";
import {
	drainCapMs,
	drainCapWithBackgroundMs,
	drainIdleWithBackgroundMs,
	newRunState,
	type RunState,
} from "./run-state.js";
import {
	prepareFirstStandbyShell,
	prepareStandbyAfterResult,
	prepareStandbyShell,
	releaseStandbyShell,
	startFromStandby,
} from "./standby-shell.js";

/** Time from SIGTERM to SIGKILL when a command is timed out or aborted, in ms. */
const killGraceMs = 200;

/**
 * Past the cap, how much longer to wait for a relay that has not copied what the shell wrote and
 * whose file does not grow: starved of CPU (or stopped), not kept busy by a writer. Its bytes are
 * the command's own output.
 */
const starvedRelayExtraMs = 3000;
/** After a tree kill, how long to wait for the shell's exit to be reported before settling without it, in ms. */
const shellExitFallbackMs = 500;

function outputFileSize(descriptor: number): number {
	try {
		return fstatSync(descriptor).size;
	} catch {
		return -1;
	}
}

function onChunk(state: RunState, chunk: Buffer): void {
	if (state.discarding) return;
	state.lastActivity = monotonicMs();
	if (state.relay) {
		readRelayAnnouncement(state.relay, chunk);
		return;
	}
	const wait = state.request.onData?.(chunk);
	if (!wait) return;
	for (const stream of state.streams) stream.pause();
	wait.then(
		() => {
			state.lastActivity = monotonicMs();
			if (!state.discarding) for (const stream of state.streams) stream.resume();
		},
		() => {},
	);
}

function killTree(state: RunState): void {
	if (state.killing || state.exit || state.shellExited) return;
	const { containment } = state;
	const killing = (state.probing ?? Promise.resolve()).then(() =>
		terminateTree(containment.tree, { graceMs: killGraceMs }),
	);
	state.killing = killing;
	// A shell stuck in the kernel (uninterruptible I/O) may never report its exit: settle anyway.
	void killing.then(() => {
		setTimeout(() => {
			if (!state.shellExited && !state.settled) void onExit(state, null, "SIGKILL");
		}, shellExitFallbackMs).unref();
	});
}

function armTimeoutAndAbort(state: RunState): void {
	const { request } = state;
	state.timer = setTimeout(() => {
		if (state.shellExited) return;
		state.timedOut = true;
		killTree(state);
	}, request.timeoutMs);
	state.onAbort = () => {
		if (state.shellExited) return;
		state.aborted = true;
		killTree(state);
	};
	if (request.signal?.aborted) state.onAbort();
	else request.signal?.addEventListener("abort", state.onAbort, { once: true });
}

function stopWatching(state: RunState): void {
	clearTimeout(state.timer);
	if (state.drainTimer) clearTimeout(state.drainTimer);
	state.request.signal?.removeEventListener("abort", state.onAbort);
}

async function finish(state: RunState): Promise<void> {
	if (state.settled || !state.exit) return;
	state.settled = true;
	stopWatching(state);
	// Background processes may hold the pipe open: keep it flowing (discarding) so they never
	// block or die of SIGPIPE, without keeping toolbelt alive.
	state.discarding = true;
	for (const stream of state.streams) {
		stream.resume();
		(stream as Readable & { unref?: () => void }).unref?.();
	}
	// Through the relay, only the relay writes to the file, and only while its channel is open
	// (background jobs, or an untracked writer, still hold the pipe). With no background job
	// known, stop the relay with toolbelt. Without its pid, the background jobs stand in for it.
	const relayOpen = state.relay !== undefined && state.openStreams > 0;
	const relayPid = state.relay?.pid;
	const outputWriters = !relayOpen ? [] : relayPid !== undefined ? [relayPid] : state.backgroundPids;
	if (!state.released) {
		await keepOrRelease(state.containment.tree, {
			background: state.backgroundPids.length > 0,
			openRelayPid: relayOpen ? relayPid : undefined,
		});
	}
	// What it left running is registered by now; the command itself has ended.
	state.unhold();
	// The cgroup is removed: a held standby (calls one after another) may join its own now.
	if (state.relay) releaseStandbyShell();
	state.resolve({
		exitCode: state.exit.code,
		signal: state.exit.signal,
		timedOut: state.timedOut,
		aborted: state.aborted,
		backgroundPids: state.backgroundPids,
		...(state.escapedProcesses.length > 0 ? { escapedProcesses: state.escapedProcesses } : {}),
		pid: state.child.pid,
		outputWriters,
	});
	// Else the next command's shell is started once this result is on its way (see standby-shell.ts).
	if (state.relay && state.containment.mechanism === "cgroup") prepareStandbyAfterResult(state.request.cwd);
}

function maybeFinish(state: RunState): void {
	if (!state.exit || state.settled) return;
	if (state.openStreams === 0) {
		void finish(state);
		return;
	}
	const now = monotonicMs();
	let grew = false;
	if (state.relay && state.outputFile !== undefined) {
		const size = outputFileSize(state.outputFile);
		if (size !== state.outputSize) {
			state.outputSize = size;
			state.lastActivity = now;
			grew = true;
		}
	}
	// A relay still open (a background job holds the pipe) may not have copied the shell's last
	// bytes yet: the file not growing is no sign of idleness until the relay waits for input.
	const behind = state.relay !== undefined && !relayCaughtUp(state.relay);
	const idle =
		!behind && state.streams.every((stream) => !stream.isPaused()) && now - state.lastActivity >= state.drainIdle;
	const starved = behind && !grew;
	if (idle || (now >= state.drainDeadline && !starved) || now >= state.drainDeadline + starvedRelayExtraMs) {
		void finish(state);
		return;
	}
	if (!state.drainTimer) {
		state.drainTimer = setTimeout(
			() => {
				state.drainTimer = undefined;
				maybeFinish(state);
			},
			Math.min(state.drainIdle, 25),
		);
	}
}

async function onExit(state: RunState, code: number | null, signal: string | null): Promise<void> {
	if (state.exitHandled) return;
	state.exitHandled = true;
	if (state.killing) await state.killing;
	if (state.probing) {
		await state.probing;
		state.shellStart ??= escapeSearchStart(state.containment, state.request.cwd, state.startedMs);
	}
	if (!state.killing && (await releasedWithRelay(state.containment.tree, state.relay))) {
		state.released = true;
	} else if (process.platform !== "win32") {
		const left = await collectLeftRunning(state.containment.tree, state.relay, state.shellStart);
		state.backgroundPids = left.backgroundPids;
		state.escapedProcesses = left.escapedProcesses;
	}
	if (state.killing || state.backgroundPids.length > 0) {
		state.drainIdle = drainIdleWithBackgroundMs;
		state.drainDeadline = monotonicMs() + drainCapWithBackgroundMs;
	} else {
		state.drainDeadline = monotonicMs() + drainCapMs;
	}
	state.exit = { code, signal };
	maybeFinish(state);
}

function wireChild(state: RunState): void {
	const { child } = state;
	// Empty stdin: `cat`, `read` and `rg` without a path see end-of-input at once (after the
	// script itself, when a long command is passed that way).
	child.stdin?.on("error", () => {});
	const { openStdin } = state.request;
	if (openStdin && child.stdin) {
		// A background job keeps its stdin: the model writes to it later.
		if (state.request.stdin !== undefined) child.stdin.write(state.request.stdin);
		openStdin(pipeStdinWriter(child.stdin));
	} else {
		child.stdin?.end(state.request.stdin);
	}
	for (const stream of state.streams) {
		stream.on("data", (chunk: Buffer) => onChunk(state, chunk));
		stream.on("error", () => {});
		stream.on("close", () => {
			state.openStreams--;
			maybeFinish(state);
		});
	}
	child.on("exit", (code, signal) => {
		state.shellExited = true;
		void onExit(state, code, signal);
	});
	child.on("error", (error) => {
		if (state.exit || state.settled) return;
		stopWatching(state);
		state.settled = true;
		state.unhold();
		releaseContainment(state.containment.tree);
		state.reject(error);
	});
}

/** The handle `onStart` receives: the containment outlives the shell, so leftovers die too. */
export function runHandle(containment: ProcessContainment, pid: number | undefined): ShellRunHandle {
	return {
		...(pid !== undefined ? { pid } : {}),
		killTree: async () => {
			await terminateTree(containment.tree, { graceMs: killGraceMs });
			releaseContainment(containment.tree);
		},
		livePids: () => findTreeProcesses(containment.tree),
		killNow: () => signalTree(containment.tree, "SIGKILL"),
	};
}

/**
 * Runs one command as a local child process, inside its own containment (cgroup, or process group
 * and marker), and resolves when the shell has exited and its output is read. With `outputFile`,
 * the output goes through the relay into that file; otherwise it goes to `request.onData`.
 */
export async function runLocalCommand(
	request: ExecRequest,
	outputFile: number | undefined,
): Promise<ShellFileExecResult> {
	// The first command of a process makes the first standby if neither its tool's creation nor its
	// call did (see `prepareCallShell`); that standby says whether it could join a cgroup: the answer
	// decides whether commands run in one (no blocking probe), and the standby is this command's
	// shell either way.
	if (outputFile !== undefined) prepareFirstStandbyShell(request.cwd);
	return new Promise((resolve, reject) => {
		const standby = outputFile === undefined ? undefined : startFromStandby({ ...request, outputFile });
		const containment = standby?.containment ?? createProcessContainment();
		let child: ChildProcess;
		try {
			child = standby?.child ?? startProcess(request, containment, outputFile);
		} catch (error) {
			releaseContainment(containment.tree);
			reject(error);
			return;
		}
		// Calls one after another: the next command's shell is started while this one runs, on the next
		// turn, as spawning (a fork of this process) takes milliseconds this command need not wait for.
		if (outputFile !== undefined && containment.mechanism === "cgroup") {
			const beganAt = monotonicMs();
			setImmediate(() => prepareStandbyShell(request.cwd, beganAt));
		}
		attachRoot(containment, child.pid);
		request.onStart?.(runHandle(containment, child.pid));
		const state = newRunState(request, outputFile, child, containment, {
			resolve,
			reject,
			probing: standby?.probing,
		});
		// Without a cgroup, nothing else ends this shell if toolbelt ends first (a SIGTERM). Held
		// whatever the mechanism: the first standby may find only after its start that it cannot join.
		state.unhold = holdRunningCommand(containment.tree);
		wireChild(state);
		armTimeoutAndAbort(state);
	});
}
