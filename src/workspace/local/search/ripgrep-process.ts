import { type ChildProcessByStdio, spawn } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { AbortError, ToolError } from "../../../engine/index.js";
import { signalChild } from "../process/signal.js";
import { readCallsOf } from "./read-calls.js";
import {
	launcherReady,
	launchRipgrep,
	noteRipgrepStarted,
	prepareRipgrepLauncher,
	ripgrepRunEnded,
	stillRunnable,
} from "./ripgrep-launcher.js";
import { type RipgrepPair, startRipgrepPair as startPair, startWaitingRipgrep } from "./ripgrep-pair.js";
import type { LaunchedRipgrep, LaunchedRipgrepEnd } from "./shell-started-ripgrep.js";

/** How to run ripgrep once. */
export interface RipgrepRunOptions {
	/** The `rg` binary. */
	rgPath: string;
	/** Arguments after the binary. */
	args: string[];
	/** Working directory: the search root, so that ripgrep prints paths relative to it. */
	cwd: string;
	/** Kills ripgrep at once when aborted. */
	signal: AbortSignal;
	/**
	 * Starts the process somewhere else (a remote workspace runs ripgrep there); stdin must be
	 * empty and stdout and stderr pipes. Default: a local child process.
	 */
	launch?: RipgrepLauncher;
	/**
	 * Started beside another ripgrep of the same search (the every-thread one of a race): it is
	 * not counted as a search, so a process's first search still prepares no launcher (a one-shot
	 * call would pay a shell's start for nothing, on a busy machine hundreds of milliseconds).
	 */
	alongside?: boolean;
	/** A ripgrep already started with these arguments (one of a `RipgrepPair`), read instead of starting one. */
	started?: LaunchedRipgrep;
}

/** Starts `rgPath args` in `cwd` (see `RipgrepRunOptions.launch`). */
export type RipgrepLauncher = (
	rgPath: string,
	args: string[],
	cwd: string,
) => Promise<ChildProcessByStdio<null | Writable, Readable, Readable>>;

/** Cuts ripgrep's output into lines: raw bytes (`LineSplitter`) or text (`TextLineSplitter`). */
export interface OutputSplitter<TLine> {
	/** The complete lines a chunk finishes. */
	push(chunk: Buffer): TLine[];
	/** The unfinished last line, at the end of the output. */
	flush(): TLine[];
}

/** A started ripgrep process, read as batches of output lines. */
export interface RipgrepProcess<TLine> {
	/** Batches of output lines (no `\n`). Ends when ripgrep exits; kills it when iteration stops early. */
	lines: AsyncIterable<TLine[]>;
	/** The read calls it made so far (see `readCallsOf`); undefined where they cannot be counted, or once it ended. */
	readCalls(): number | undefined;
}

const MAX_STDERR = 16 * 1024;

/** stderr lines that leave the results valid: unreadable files, and "every file was filtered out". */
const HARMLESS = [/\(os error \d+\)\s*$/, /No files were searched/, /Running with --debug/];

type RipgrepChild = ChildProcessByStdio<null | Writable, Readable, Readable>;

/** A ripgrep process as read: its output, how it ended, and how to end it. */
interface RunningRipgrep {
	stdout: Readable;
	/** Settles once ripgrep exited and its output closed. */
	finished: Promise<LaunchedRipgrepEnd>;
	kill: () => void;
	/** Its process id while it runs (undefined before it is known and after it exited). */
	pid: () => number | undefined;
}

/**
 * Starts ripgrep and resolves once the process really runs, so a missing or unrunnable binary
 * rejects here (and the caller can fall back) instead of surfacing mid-stream. A local ripgrep
 * that started before comes from the launcher when it is ready, a process's first one from the
 * shell a search tool's creation started (neither forks this process).
 */
export async function startRipgrep<TLine>(
	options: RipgrepRunOptions,
	splitter: OutputSplitter<TLine>,
): Promise<RipgrepProcess<TLine>> {
	if (options.signal.aborted) throw new AbortError();
	const local = options.launch === undefined;
	let launched = local ? (options.started ?? launchRipgrep({ ...options, maxStderr: MAX_STDERR })) : undefined;
	let runOptions = options;
	if (local && launched === undefined) {
		launched = startedAhead(options);
		// Read as one a pair started: its first output says the binary runs (see `readLines`).
		if (launched) runOptions = { ...options, started: launched };
	}
	const running = launched ? killedOnAbort(launched, options.signal) : await startDirectly(options);
	if (local) {
		prepareRipgrepLauncher(!options.alongside);
		void running.finished.then(ripgrepRunEnded, ripgrepRunEnded);
	}
	const run = { running, options: runOptions, splitter };
	return {
		lines: readLines(run),
		readCalls: () => {
			// A remote ripgrep's process id is not this system's.
			const pid = options.launch ? undefined : run.running.pid();
			return pid === undefined ? undefined : readCallsOf(pid);
		},
	};
}

/**
 * Starts the ordered ripgrep of a path-ordered search with its every-thread partner ready to
 * start from the same fork of this process (see `RipgrepPair`). Undefined where the launcher is
 * ready (it forks nothing), where the binary is no runnable file (a direct start then fails, and
 * the walker answers), or where no shell can run the pair.
 */
export function startRipgrepPair(options: {
	rgPath: string;
	everyThreadArgs: readonly string[];
	cwd: string;
}): RipgrepPair | undefined {
	if (launcherReady(options.rgPath) || !stillRunnable(options.rgPath)) return undefined;
	return startPair({ ...options, maxStderr: MAX_STDERR });
}

/**
 * ripgrep started by the shell a search tool's creation started ahead (`prepareRipgrepPair`), where
 * one waits and the binary is still a runnable file (a direct start of one that went away fails at
 * start, and the walker answers).
 */
function startedAhead(options: RipgrepRunOptions): LaunchedRipgrep | undefined {
	if (!stillRunnable(options.rgPath)) return undefined;
	return startWaitingRipgrep({ ...options, maxStderr: MAX_STDERR });
}

/** Kills ripgrep at once when `signal` aborts, until it ends. */
function killedOnAbort<TRun extends { finished: Promise<unknown>; kill(): void }>(
	run: TRun,
	signal: AbortSignal,
): TRun {
	const kill = () => run.kill();
	signal.addEventListener("abort", kill, { once: true });
	void run.finished.then(() => signal.removeEventListener("abort", kill));
	return run;
}

function directRun(child: RipgrepChild): RunningRipgrep {
	let stderr = "";
	child.stderr.setEncoding("utf8");
	child.stderr.on("data", (text: string) => {
		if (stderr.length < MAX_STDERR) stderr += text;
	});
	const finished = new Promise<LaunchedRipgrepEnd>((resolve) => {
		child.once("close", (code) => resolve({ code, stderr, launchFailed: false }));
		// A child that could not start has nothing to kill: release the abort listener.
		child.once("error", () => resolve({ code: null, stderr, launchFailed: false }));
	});
	const running = () => child.exitCode === null && child.signalCode === null;
	const kill = () => {
		if (running()) signalChild(child, "SIGKILL");
	};
	return { stdout: child.stdout, finished, kill, pid: () => (running() ? child.pid : undefined) };
}

async function startDirectly(options: RipgrepRunOptions): Promise<RunningRipgrep> {
	// stdin is closed: with no path argument and a readable stdin, ripgrep would search stdin.
	const child = options.launch
		? await options.launch(options.rgPath, options.args, options.cwd)
		: spawn(options.rgPath, options.args, { cwd: options.cwd, stdio: ["ignore", "pipe", "pipe"], windowsHide: true });
	// Registered at once, not when reading starts, so an abort kills even a never-read ripgrep.
	const running = killedOnAbort(directRun(child), options.signal);
	await new Promise<void>((resolve, reject) => {
		child.once("spawn", resolve);
		child.once("error", reject);
	});
	if (!options.launch) noteRipgrepStarted(options.rgPath);
	return running;
}

/**
 * Least output cut into lines at once. ripgrep writes 8 KiB at a time; a reader that fell behind (a
 * busy event loop, a loaded machine) gets several writes in one chunk. Cut piece by piece, the lines
 * of a chunk are split and parsed only as far as the consumer reads: one that stops at its limit
 * does not pay for the rest (a first call under load got 32 KB, 860 lines, where it needed 400).
 */
export const OUTPUT_PIECE_BYTES = 8 * 1024;

/**
 * `chunk` in views that end at a newline once they hold `OUTPUT_PIECE_BYTES`, so that no line is cut
 * between two; a chunk with no newline past that (a long line on its way) comes whole.
 */
export function* piecesOf(chunk: Buffer): Generator<Buffer> {
	let start = 0;
	while (chunk.length - start > OUTPUT_PIECE_BYTES) {
		const newline = chunk.indexOf(0x0a, start + OUTPUT_PIECE_BYTES - 1);
		if (newline === -1 || newline === chunk.length - 1) break;
		yield chunk.subarray(start, newline + 1);
		start = newline + 1;
	}
	yield start === 0 ? chunk : chunk.subarray(start);
}

async function* readLines<TLine>(run: {
	running: RunningRipgrep;
	options: RipgrepRunOptions;
	splitter: OutputSplitter<TLine>;
}): AsyncGenerator<TLine[]> {
	const { running, options, splitter } = run;
	const { signal } = options;
	let finished = false;
	let output = false;
	try {
		for await (const chunk of running.stdout as AsyncIterable<Buffer>) {
			if (signal.aborted) break;
			// Output from a ripgrep a pair's shell started: the binary runs, the launcher may run it too.
			if (!output && options.started) noteRipgrepStarted(options.rgPath);
			output = true;
			for (const piece of piecesOf(chunk)) {
				const lines = splitter.push(piece);
				if (lines.length > 0) yield lines;
				if (signal.aborted) break;
			}
		}
		if (signal.aborted) throw new AbortError();
		const last = splitter.flush();
		if (last.length > 0) yield last;
		const end = await running.finished;
		if (signal.aborted) throw new AbortError();
		finished = true;
		if (end.launchFailed && !output) {
			// The launcher could not start ripgrep (the folder or binary went away since): start it
			// directly, which fails, or succeeds, as it would have without the launcher.
			run.running = await startDirectly(options);
			yield* readLines(run);
			return;
		}
		const failure = fatalMessage(end.code, end.stderr);
		if (failure) throw new ToolError(failure, { stderr: end.stderr });
	} finally {
		if (!finished) running.kill();
	}
}

/**
 * ripgrep exits 2 for any error, also when it only could not read some files or every file was
 * filtered out, and the results are still good. Anything else is a real failure: a bad
 * regex or glob, whose explanation ripgrep writes to stderr.
 */
function fatalMessage(code: number | null, stderr: string): string | undefined {
	if (code !== 2) return undefined;
	const lines = stderr.split("\n").filter((line) => line.trim() !== "");
	const serious = lines.filter((line) => !HARMLESS.some((harmless) => harmless.test(line)));
	if (serious.length === 0) return undefined;
	const explanation = stderr.trim().replace(/^rg: /, "");
	const why = LIMIT_HINTS.find((hint) => hint.test.test(stderr))?.text ?? "";
	return `ripgrep rejected the search:\n${explanation}\n${why}Fix the pattern (or set literal: true to search for the text as written) and try again.`;
}

/** What a limit ripgrep reports means for the pattern, for the model. */
const LIMIT_HINTS = [
	{
		test: /exceeds size limit/,
		text: "The compiled pattern is too large (grep allows 10 MB): large counted repetitions such as a{1000}{1000} or \\w{500} grow it. ",
	},
	{
		test: /match limit exceeded|depth limit exceeded|JIT stack/,
		text: "The pattern backtracks too much (look-around and back-references run on PCRE2, which stops at its match limit): avoid nested quantifiers such as (a+)+. ",
	},
];
