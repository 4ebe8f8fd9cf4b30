import type { ChildProcess } from "node:child_process";
import type { Readable } from "node:stream";
import { monotonicMs } from "../../../engine/index.js";
import type { EscapedProcess, ShellFileExecResult } from "../../shell/exec-types.js";
import type { ProcessContainment } from "../process/containment.js";
import { escapeSearchStart, type ShellStart } from "./left-running.js";
import type { ExecRequest } from "./process-start.js";
import { createRelayChannel, type RelayChannel } from "./relay-channel.js";

// What one run of a local command knows, and what it starts with (local-run.ts runs it).

/**
 * After the shell exits, how long to keep reading for output still in the pipe. With background
 * processes holding the pipe open, reading stops after a short idle time; otherwise it continues
 * until the pipe closes or goes idle, and at most `drainCapMs`: a writer that escaped tracking
 * (own session and marker removed, where no cgroup holds it) may keep the pipe busy forever.
 */
export const drainIdleWithBackgroundMs = 50;
export const drainCapWithBackgroundMs = 300;
const drainIdleMs = 1000;
export const drainCapMs = 2000;

/** Everything one run knows; the phases of local-run.ts read and update it. */
export interface RunState {
	request: ExecRequest;
	outputFile: number | undefined;
	child: ChildProcess;
	containment: ProcessContainment;
	relay: RelayChannel | undefined;
	streams: Readable[];
	openStreams: number;
	exit: { code: number | null; signal: string | null } | undefined;
	killing: Promise<void> | undefined;
	timedOut: boolean;
	aborted: boolean;
	settled: boolean;
	discarding: boolean;
	/** Set the moment the shell exits: a timeout or abort after that must not kill what it left running. */
	shellExited: boolean;
	/** The exit is handled once: the real exit, or the fallback after a kill whose exit never came. */
	exitHandled: boolean;
	/** When output last moved (a `monotonicMs()` reading, as is `drainDeadline`). */
	lastActivity: number;
	drainTimer: NodeJS.Timeout | undefined;
	drainDeadline: number;
	drainIdle: number;
	backgroundPids: number[];
	/** Without a cgroup: when the shell started (clock ticks), to notice escapees born after it. */
	shellStart: ShellStart | undefined;
	/** When the run began (a `monotonicMs()` reading). */
	startedMs: number;
	/**
	 * Until the first standby said whether it joined its cgroup: the containment is final (and
	 * the tree can be found and killed) once this settles.
	 */
	probing: Promise<void> | undefined;
	/** True once the command's cgroup was found empty and removed as its relay ended (`releasedWithRelay`). */
	released: boolean;
	/** Ends the hold on the running command that kills it if toolbelt ends first (`holdRunningCommand`). */
	unhold: () => void;
	/** Processes that escaped tracking (only without a cgroup), reported to the model. */
	escapedProcesses: EscapedProcess[];
	/** Through the relay, activity is the output file growing (the channel carries no output). */
	outputSize: number;
	timer: NodeJS.Timeout | undefined;
	onAbort: () => void;
	resolve: (result: ShellFileExecResult) => void;
	reject: (error: unknown) => void;
}

/** The state of a run whose shell was just started: nothing read, nothing exited yet. */
export function newRunState(
	request: ExecRequest,
	outputFile: number | undefined,
	child: ChildProcess,
	containment: ProcessContainment,
	settle: Pick<RunState, "resolve" | "reject" | "probing">,
): RunState {
	const startedMs = monotonicMs();
	// Through the relay, the one stream is its fd 3: the relay's pid, then its end (when it has
	// copied everything).
	const channel = outputFile === undefined ? undefined : (child.stdio[3] as Readable | null | undefined);
	const streams = (channel ? [channel] : [child.stdout, child.stderr]).filter(
		(stream): stream is Readable => stream !== null && stream !== undefined,
	);
	return {
		request,
		outputFile,
		child,
		containment,
		relay: channel ? createRelayChannel(channel) : undefined,
		streams,
		openStreams: streams.length,
		exit: undefined,
		killing: undefined,
		timedOut: false,
		aborted: false,
		settled: false,
		discarding: false,
		shellExited: false,
		exitHandled: false,
		lastActivity: monotonicMs(),
		drainTimer: undefined,
		drainDeadline: Number.POSITIVE_INFINITY,
		drainIdle: drainIdleMs,
		backgroundPids: [],
		shellStart: escapeSearchStart(containment, request.cwd, startedMs),
		startedMs,
		escapedProcesses: [],
		released: false,
		// Set once the shell's pid is known (`attachRoot`).
		unhold: () => {},
		outputSize: -1,
		timer: undefined,
		onAbort: () => {},
		...settle,
	};
}
