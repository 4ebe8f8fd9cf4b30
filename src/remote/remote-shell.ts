import type { ChildProcessWithoutNullStreams } from "node:child_process";
import type { ShellExecRequest, ShellExecResult, ShellOperations } from "../tools/index.js";
import type { KeptOutputOptions, KeptOutputResult } from "../tools/shell/exec-types.js";
import { KeptOutputReader, keptOutputOf, keptOutputScript, previewOf, rawFits, rawFitsScript } from "./kept-output.js";
import { type RemoteRunResult, runRemote } from "./run-remote.js";
import type { ScriptChannel } from "./script-channel.js";
import { ShellSession } from "./shell-session.js";
import type { RemoteTransport } from "./transport.js";

/**
 * Starts the command in its own session (its process group id is its pid, sent back on stderr),
 * with stdout and stderr merged in arrival order and stdin from the client (empty unless the
 * command itself arrives there), and reports its exit status on stderr. The first four arguments
 * say where the output goes: `0 0 0 0` streams it over the connection; `KEEP FITBYTES FITLINES
 * EVERY` writes it to a file on the remote side and sends only tail frames (see `kept-output.ts`),
 * removing the file when the raw output fits the budget.
 */
const execScript = `${keptOutputScript}${String.raw`
keep=$1; fitBytes=$2; fitLines=$3; every=$4; shift 4
cd -- "$1" 2>/dev/null || { printf 'TOOLBELT_NOCWD\n' >&2; exit 96; }
# $2 variables follow, NAME=value each: exported by the shell itself (no env process to start).
n=$2; shift 2
while [ "$n" -gt 0 ]; do export "$1"; shift; n=$((n - 1)); done
exec 3<&0
if [ "$keep" -gt 0 ]; then keptOutputOpen; exec 4>>"$out"; else exec 4>&1; fi
if command -v setsid >/dev/null 2>&1; then setsid "$@" <&3 >&4 2>&1 & else "$@" <&3 >&4 2>&1 & fi
pid=$!
exec 3<&- 4>&-
printf 'TOOLBELT_PID %s\n' "$pid" >&2
ticker=
[ "$keep" -gt 0 ] && [ "$every" != 0 ] && { keptOutputTicker & ticker=$!; }
wait "$pid"; code=$?
[ -n "$ticker" ] && { kill -TERM "$ticker" 2>/dev/null; wait "$ticker" 2>/dev/null; }
if [ "$keep" -gt 0 ]; then
	keptOutputFrame F
	# Background jobs of the command still run: the workspace stops them when it closes.
	kill -0 "-$pid" 2>/dev/null && printf 'TOOLBELT_ALIVE\n' >&2
	${rawFitsScript} && rm -f -- "$out"
fi
printf 'TOOLBELT_EXIT %s\n' "$code" >&2
`}`;

/** Kills a remote process group (and the process itself, where `setsid` was missing). */
const killScript = `kill -KILL "-$1" 2>/dev/null; kill -KILL "$1" 2>/dev/null; exit 0`; // dash's kill takes no "--"

/** How long the output may trail the exit report before background jobs are assumed to hold it. */
const OUTPUT_GRACE_MS = 300;

/** Variables worth sending: those toolbelt or the tool's `env` option set, not this machine's own. */
function forwardedEnvironment(env: Record<string, string>): string[] {
	return Object.entries(env)
		.filter(([name, value]) => process.env[name] !== value && /^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
		.map(([name, value]) => `${name}=${value}`);
}

/** The control lines `execScript` prints on stderr. */
type ControlKind = "PID" | "EXIT" | "NOCWD" | "FILE" | "ALIVE" | "NOFILE";

/** Reads the control lines (`TOOLBELT_PID n`, `TOOLBELT_EXIT n`) from stderr; other text is output. */
function watchControl(
	child: ChildProcessWithoutNullStreams,
	onOutput: (chunk: Buffer) => void,
	onControl: (kind: ControlKind, value: string) => void,
): () => string {
	let pending = "";
	let other = "";
	child.stderr.setEncoding("utf8");
	child.stderr.on("data", (text: string) => {
		pending += text;
		for (let newline = pending.indexOf("\n"); newline !== -1; newline = pending.indexOf("\n")) {
			const line = pending.slice(0, newline);
			pending = pending.slice(newline + 1);
			const control = /^TOOLBELT_(PID|EXIT|NOCWD|FILE|ALIVE|NOFILE) ?(.*)$/.exec(line);
			if (control) onControl(control[1] as ControlKind, control[2] ?? "");
			else {
				other += `${line}\n`;
				onOutput(Buffer.from(`${line}\n`));
			}
		}
	});
	return () => other + pending;
}

/** Live remote command runs, so `close` can end what background jobs hold open. */
type Lingering = Set<{ child: ChildProcessWithoutNullStreams; pid: number | undefined }>;

/** `ShellOperations` with a way to stop what is still running remotely. */
export interface RemoteShellOperations extends ShellOperations {
	/** Always present remotely: the output stays in a file on the remote side. */
	execKeepingOutput: NonNullable<ShellOperations["execKeepingOutput"]>;
	/** Kills the remote process groups of commands whose background jobs still run, and their clients. */
	close(): Promise<void>;
}

/** Seconds between progress frames of a kept output. */
const PROGRESS_SECONDS = "0.5";

/** How a command's output travels: streamed to `onData`, or kept in a file on the remote side. */
type OutputMode =
	| { kind: "stream"; onData: ShellExecRequest["onData"] }
	| { kind: "kept"; options: KeptOutputOptions; reader: KeptOutputReader; path?: string; alive?: boolean };

/** The four leading arguments of `execScript` for a mode. */
function modeArguments(mode: OutputMode): string[] {
	if (mode.kind === "stream") return ["0", "0", "0", "0"];
	const { budget, onPreview } = mode.options;
	// Sanitizing shrinks output (colour codes, redraws): as locally, more raw bytes than the budget come back.
	const keep = Math.max(4 * budget.maxBytes, 256 * 1024);
	return [String(keep), String(budget.maxBytes), String(budget.maxLines), onPreview ? PROGRESS_SECONDS : "0"];
}

/** Sends the remote stdout where the mode says, with backpressure for a stream. */
function wireStdout(child: ChildProcessWithoutNullStreams, mode: OutputMode, onFrame: () => void): void {
	child.stdout.on("data", (chunk: Buffer) => {
		if (mode.kind === "kept") {
			mode.reader.write(chunk);
			onFrame();
			return;
		}
		const wait = mode.onData(chunk);
		if (wait) {
			child.stdout.pause();
			void wait.then(() => child.stdout.resume());
		}
	});
}

async function execRemote(
	transport: RemoteTransport,
	lingering: Lingering,
	request: Omit<ShellExecRequest, "onData">,
	session: ShellSession | undefined,
	mode: OutputMode,
): Promise<ShellExecResult> {
	const environment = forwardedEnvironment(request.env);
	const args = [
		...modeArguments(mode),
		request.cwd,
		String(environment.length),
		...environment,
		request.file,
		...request.args,
	];
	const child = session?.alive ? session.run(args) : await transport.spawn(execScript, args);
	const entry: { child: ChildProcessWithoutNullStreams; pid: number | undefined } = { child, pid: undefined };
	let exitStatus: number | undefined;
	let noCwd = false;
	let noFile = false;
	let killedBy: "timeout" | "abort" | undefined;
	let finish: () => void = () => {};
	const finished = new Promise<void>((resolve) => {
		finish = resolve;
	});
	let grace: NodeJS.Timeout | undefined;
	// A kept output is complete with its final frame, which may trail the exit report on stderr.
	const maybeDone = () => {
		if (exitStatus === undefined) return;
		if (mode.kind === "kept") {
			if (mode.reader.final) finish();
		} else grace ??= setTimeout(finish, OUTPUT_GRACE_MS);
	};
	const stderrText = watchControl(
		child,
		(chunk) => {
			if (mode.kind === "stream") void mode.onData(chunk);
		},
		(kind, value) => {
			if (kind === "PID") entry.pid = Number(value);
			else if (kind === "NOCWD") noCwd = true;
			else if (kind === "NOFILE") noFile = true;
			else if (kind === "FILE" && mode.kind === "kept") mode.path = value;
			else if (kind === "ALIVE" && mode.kind === "kept") mode.alive = true;
			else if (kind === "EXIT") {
				exitStatus = Number(value);
				maybeDone();
			}
		},
	);
	wireStdout(child, mode, maybeDone);
	child.stdin.on("error", () => {});
	child.stdin.end(request.stdin ?? undefined);
	let exitCode: number | null = null;
	child.once("close", (code) => {
		exitCode = code;
		finish();
	});
	const kill = (reason: "timeout" | "abort") => {
		if (killedBy || exitStatus !== undefined) return;
		killedBy = reason;
		const local = setTimeout(() => child.kill("SIGKILL"), 5000);
		const stop = entry.pid ? runRemote(transport, killScript, [String(entry.pid)]) : Promise.resolve();
		void stop.catch(() => child.kill("SIGKILL")).finally(() => clearTimeout(local));
		if (!entry.pid) child.kill("SIGKILL");
	};
	const timer = setTimeout(() => kill("timeout"), request.timeoutMs);
	const onAbort = () => kill("abort");
	request.signal?.addEventListener("abort", onAbort, { once: true });
	if (request.signal?.aborted) onAbort();
	await finished;
	clearTimeout(timer);
	clearTimeout(grace);
	request.signal?.removeEventListener("abort", onAbort);
	if (exitStatus === undefined && !killedBy) {
		const failure = transport.failure(exitCode, stderrText());
		if (failure) throw failure;
		if (noCwd)
			throw Object.assign(new Error(`The working directory ${request.cwd} does not exist on ${transport.label}.`), {
				code: "ENOENT",
			});
		if (noFile) throw new Error(`Could not create a file for the output in the temp folder of ${transport.label}.`);
	}
	keepLingering(lingering, entry, mode);
	return resultOf(killedBy, exitStatus, exitCode);
}

/** Background jobs keep running until the workspace closes: they are remembered to be stopped then. */
function keepLingering(
	lingering: Lingering,
	entry: { child: ChildProcessWithoutNullStreams; pid: number | undefined },
	mode: OutputMode,
): void {
	if (mode.kind === "kept") {
		// Their output goes to the remote file, so the channel closed: the remote group is what is left.
		if (mode.alive) lingering.add(entry);
		return;
	}
	if (entry.child.exitCode === null && entry.child.signalCode === null) {
		// Background jobs keep the channel open: let them run until the workspace closes.
		lingering.add(entry);
		entry.child.once("close", () => lingering.delete(entry));
		entry.child.stdout.removeAllListeners("data");
		entry.child.stdout.resume();
	}
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

/**
 * `ShellOperations` over a remote transport: the command runs in its own session on the remote
 * side, so a timeout or an abort kills the remote process group (a second remote call), not just
 * the local client; stdin is empty; output streams back with backpressure. The small checks
 * (is it a folder, where is the program) ride on `channel` when given, instead of a process each.
 */
export function createRemoteShellOperations(
	transport: RemoteTransport,
	channel?: ScriptChannel,
): RemoteShellOperations {
	const lingering: Lingering = new Set();
	// Full-output files named to the model: removed when the workspace closes, as local ones at exit.
	const keptFiles = new Set<string>();
	const check = (script: string, args: string[]): Promise<RemoteRunResult> =>
		channel ? channel.run(script, args) : runRemote(transport, script, args);
	// A shell tool asks isDirectory, then findExecutable, then runs: the first question opens the
	// session the command will run in, and the questions are answered there.
	let session: Promise<ShellSession | undefined> | undefined;
	const sessionNow = async (): Promise<ShellSession | undefined> => {
		const current = await session;
		if (current?.alive) return current;
		session = ShellSession.open(transport, execScript).catch(() => undefined);
		return session;
	};
	const ask = async (question: "dir" | "which", subject: string, fallback: () => Promise<string>) => {
		const current = await sessionNow();
		return current ? current.ask(question, subject).catch(fallback) : fallback();
	};
	// Where a shell lives does not change while a workspace is open: each is looked up once.
	const executables = new Map<string, Promise<string | undefined>>();
	return {
		exec: async (request) => {
			const ready = await session;
			session = undefined;
			return execRemote(transport, lingering, request, ready, { kind: "stream", onData: request.onData });
		},
		execKeepingOutput: async (request, options): Promise<KeptOutputResult> => {
			const ready = await session;
			session = undefined;
			const { budget, onPreview } = options;
			const reader = new KeptOutputReader(onPreview ? (frame) => onPreview(previewOf(frame, budget)) : undefined);
			const mode: OutputMode = { kind: "kept", options, reader };
			const result = await execRemote(transport, lingering, request, ready, mode);
			const output = keptOutputOf({ final: reader.final, budget, path: mode.path, host: transport.label });
			if (output.fullOutputPath) keptFiles.add(output.fullOutputPath);
			else if (mode.path && !(reader.final && rawFits(reader.final, budget))) {
				// Not removed remotely (the raw output did not fit, the sanitized one does): removed now.
				await check(`rm -f -- "$1"`, [mode.path]).catch(() => {});
			}
			return { result, output };
		},
		isDirectory: async (path) =>
			(await ask("dir", path, async () => ((await check(`[ -d "$1" ]`, [path])).exitCode === 0 ? "yes" : ""))) ===
			"yes",
		findExecutable: (nameOrPath) => {
			const known = executables.get(nameOrPath);
			if (known) return known;
			const script = `case $1 in */*) [ -x "$1" ] && [ ! -d "$1" ] && printf '%s' "$1";; *) unset -f "$1" 2>/dev/null; command -v -- "$1";; esac`;
			const looking = ask("which", nameOrPath, async () => (await check(script, [nameOrPath])).stdout.toString("utf8"))
				.then((answer) => answer.trim())
				.then((found) => {
					// Only a found program is kept: one installed later is then found on the next call.
					if (!found.startsWith("/")) executables.delete(nameOrPath);
					return found.startsWith("/") ? found : undefined;
				});
			executables.set(nameOrPath, looking);
			looking.catch(() => executables.delete(nameOrPath));
			return looking;
		},
		close: async () => {
			const spare = await session;
			session = undefined;
			spare?.close();
			const entries = [...lingering];
			lingering.clear();
			const files = [...keptFiles];
			keptFiles.clear();
			if (files.length > 0) await check(`rm -f -- "$@"`, files).catch(() => {});
			await Promise.all(
				entries.map(async ({ child, pid }) => {
					if (pid) await runRemote(transport, killScript, [String(pid)]).catch(() => {});
					child.kill("SIGKILL");
				}),
			);
		},
	};
}
