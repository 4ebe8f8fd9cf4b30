import { signalChild } from "../../local/index.js";
import type { KeptOutputOptions, ShellExecRequest, ShellExecResult } from "../../shell/exec-types.js";
import { pipeStdinWriter } from "../../shell/stdin-writer.js";
import { firstFrameBytes, keepBytes } from "../transport/frame-size.js";
import { runRemote } from "../transport/run-remote.js";
import type { RemoteTransport } from "../transport/transport.js";
import type { KeptOutputReader } from "./kept-output.js";
import { watchProgress } from "./progress-watch.js";
import type { ShellSession } from "./shell-session.js";

/** Kills a remote process group (and the process itself, where `setsid` was missing). */
export const killScript = `kill -KILL "-$1" 2>/dev/null; kill -KILL "$1" 2>/dev/null; exit 0`; // dash's kill takes no "--"

/** How long the output may trail the exit report before background jobs are assumed to hold it. */
const OUTPUT_GRACE_MS = 300;

/** How a command's output travels: streamed to `onData`, or kept in a file on the remote side. */
export type OutputMode =
	| { kind: "stream"; onData: ShellExecRequest["onData"] }
	| { kind: "kept"; options: KeptOutputOptions; reader: KeptOutputReader; path?: string; alive?: boolean };

/** How one run in a session ended, beyond the result the tools see. */
export interface SessionRunOutcome {
	/** The result for the shell tool. */
	result: ShellExecResult;
	/** The remote process group id, once it was reported. */
	pid: number | undefined;
	/** True when the session's process ended during the run (its channel closed). */
	sessionEnded: boolean;
}

/** Variables worth sending: those toolbelt or the tool's `env` option set, not this machine's own. */
function forwardedEnvironment(env: Record<string, string>): string[] {
	return Object.entries(env)
		.filter(([name, value]) => process.env[name] !== value && /^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
		.map(([name, value]) => `${name}=${value}`);
}

/**
 * The three leading arguments of `toolbeltRun` for a mode (see `session-script.ts`). A run that
 * leaves its session usable asks for a narrow final frame first (a wider one can follow there);
 * a `once` run, whose session ends with it, for the full window at once.
 */
function modeArguments(mode: OutputMode, runMode: "session" | "once"): string[] {
	if (mode.kind === "stream") return ["0", "0", "0"];
	const { budget } = mode.options;
	const frame = runMode === "session" ? firstFrameBytes(mode.options) : keepBytes(mode.options);
	return [String(frame), String(budget.maxBytes), String(budget.maxLines)];
}

/** The control lines `toolbeltRun` prints on stderr. */
const CONTROL = /^TOOLBELT_(PID|EXIT|NOCWD|FILE|ALIVE|NOFILE) ?(.*)$/;

/** The state of one run while its lines come in. */
interface RunState {
	pid: number | undefined;
	exitStatus: number | undefined;
	/** NOCWD or NOFILE: the run did not start. */
	refused: "NOCWD" | "NOFILE" | undefined;
	closedWith: number | null | undefined;
}

/**
 * Runs one command in `session` (`once`: the session ends with it; `session`: it stays usable).
 * A timeout or an abort kills the remote process group through a second remote call, not just the
 * local client. Resolves once the run's last line came; throws when the transport failed or the
 * working directory or the output file could not be had.
 */
export async function runInSession(
	transport: RemoteTransport,
	session: ShellSession,
	runMode: "session" | "once",
	request: Omit<ShellExecRequest, "onData">,
	mode: OutputMode,
): Promise<SessionRunOutcome> {
	const environment = forwardedEnvironment(request.env);
	const args = [
		...modeArguments(mode, runMode),
		request.cwd,
		String(environment.length),
		...environment,
		request.file,
		...request.args,
	];
	const state: RunState = { pid: undefined, exitStatus: undefined, refused: undefined, closedWith: undefined };
	let finish: () => void = () => {};
	const finished = new Promise<void>((resolve) => {
		finish = resolve;
	});
	let grace: NodeJS.Timeout | undefined;
	let progress: { stop(): void } | undefined;
	// A kept output is complete with its final frame, which may trail the exit report on stderr.
	const maybeDone = () => {
		if (state.exitStatus === undefined) return;
		if (mode.kind === "kept") {
			if (mode.reader.final) finish();
		} else if (runMode === "session") finish();
		else grace ??= setTimeout(finish, OUTPUT_GRACE_MS);
	};
	session.run(runMode, args, {
		onStdout: (chunk) => {
			if (mode.kind === "stream") return mode.onData(chunk);
			mode.reader.write(chunk);
			maybeDone();
		},
		onLine: (line) => {
			const control = CONTROL.exec(line);
			if (!control) {
				if (mode.kind === "stream") void mode.onData(Buffer.from(`${line}\n`));
				return;
			}
			const [, kind, value = ""] = control;
			if (kind === "PID") {
				state.pid = Number(value);
				const onPreview = mode.kind === "kept" ? mode.options.onPreview : undefined;
				if (mode.kind === "kept" && onPreview && mode.path) {
					const { path, options } = mode;
					progress = watchProgress(transport, {
						path,
						pid: state.pid,
						keep: keepBytes(options),
						budget: options.budget,
						onPreview,
					});
				}
			} else if (kind === "NOCWD" || kind === "NOFILE") {
				state.refused = kind;
				finish();
			} else if (kind === "FILE" && mode.kind === "kept") mode.path = value;
			else if (kind === "ALIVE" && mode.kind === "kept") mode.alive = true;
			else if (kind === "EXIT") {
				state.exitStatus = Number(value);
				maybeDone();
			}
		},
		onClose: (code) => {
			state.closedWith = code;
			finish();
		},
	});
	if (runMode === "once") feedStdin(session, request);
	let killedBy: "timeout" | "abort" | undefined;
	const kill = (reason: "timeout" | "abort") => {
		if (killedBy || state.exitStatus !== undefined) return;
		killedBy = reason;
		const local = setTimeout(() => signalChild(session.child, "SIGKILL"), 5000);
		const stop = state.pid ? runRemote(transport, killScript, [String(state.pid)]) : Promise.resolve();
		void stop.catch(() => signalChild(session.child, "SIGKILL")).finally(() => clearTimeout(local));
		if (!state.pid) signalChild(session.child, "SIGKILL");
	};
	const timer = setTimeout(() => kill("timeout"), request.timeoutMs);
	const onAbort = () => kill("abort");
	request.signal?.addEventListener("abort", onAbort, { once: true });
	if (request.signal?.aborted) onAbort();
	await finished;
	clearTimeout(timer);
	clearTimeout(grace);
	progress?.stop();
	request.signal?.removeEventListener("abort", onAbort);
	// A job's stdin ends with the job: no channel is held open for a command that is gone.
	if (runMode === "once" && request.openStdin) session.child.stdin.end();
	const errorText = session.errorText();
	// Output after the last line (background jobs of a streamed run) is no longer anybody's.
	session.detach();
	const sessionEnded = state.closedWith !== undefined;
	if (state.exitStatus === undefined && !killedBy) throwRunFailure(transport, request, state, errorText);
	return { result: resultOf(killedBy, state.exitStatus, state.closedWith ?? null), pid: state.pid, sessionEnded };
}

/**
 * A `once` run's stdin is the rest of its session's channel: `request.stdin` goes first; then the
 * channel is closed, or, when the caller asked for it (a background job), kept open and handed over,
 * so what is written later reaches the command's stdin where it runs. It closes with the run.
 */
function feedStdin(session: ShellSession, request: Omit<ShellExecRequest, "onData">): void {
	const { stdin } = session.child;
	if (!request.openStdin) return void stdin.end(request.stdin ?? undefined);
	if (request.stdin !== undefined) stdin.write(request.stdin);
	request.openStdin(pipeStdinWriter(stdin));
}

/** The error of a run that never reported its exit: the transport's, else why it did not start. */
function throwRunFailure(
	transport: RemoteTransport,
	request: Omit<ShellExecRequest, "onData">,
	state: RunState,
	errorText: string,
): void {
	const failure = transport.failure(state.closedWith ?? null, errorText);
	if (failure) throw failure;
	if (state.refused === "NOCWD")
		throw Object.assign(new Error(`The working directory ${request.cwd} does not exist on ${transport.label}.`), {
			code: "ENOENT",
		});
	if (state.refused === "NOFILE")
		throw new Error(`Could not create a file for the output in the temp folder of ${transport.label}.`);
}

function resultOf(
	killedBy: "timeout" | "abort" | undefined,
	exitStatus: number | undefined,
	exitCode: number | null,
): ShellExecResult {
	const signaled = killedBy !== undefined || (exitStatus !== undefined && exitStatus > 128 && exitStatus < 160);
	return {
		exitCode: killedBy ? null : signaled ? null : (exitStatus ?? exitCode),
		signal: killedBy ? "SIGKILL" : signaled ? signalName((exitStatus ?? 0) - 128) : null,
		timedOut: killedBy === "timeout",
		aborted: killedBy === "abort",
		// Remote pids mean nothing on this machine: the local registry must never signal them.
		backgroundPids: [],
	};
}

function signalName(number: number): string {
	const names: Record<number, string> = {
		1: "SIGHUP",
		2: "SIGINT",
		6: "SIGABRT",
		9: "SIGKILL",
		13: "SIGPIPE",
		15: "SIGTERM",
	};
	return names[number] ?? `SIG${number}`;
}
