import { fstatSync } from "node:fs";
import type { Readable, Writable } from "node:stream";
import { isatty } from "node:tty";
import { UsageError } from "./args.js";

/**
 * Everything the CLI touches of its process, so tests can drive `main` in process with
 * in-memory streams and the real binary wires in `process`.
 */
export interface CliIO {
	/** Where prompts and tool arguments are read from (piped input or the terminal). */
	stdin: Readable;
	/** Results: the final answer, tool output, JSON events. */
	stdout: Writable;
	/** Progress, diagnostics and errors. */
	stderr: Writable;
	/** Environment variables (API keys, base URL). */
	env: Record<string, string | undefined>;
	/** The working directory tools resolve relative paths against (overridden by `--cwd`). */
	cwd: string;
	/** True when stdin and stdout are a terminal: enables the interactive session and live rendering. */
	isTTY: boolean;
	/** True when stdin is a terminal (so it must not be read as piped input). Default: `isTTY`. */
	stdinIsTTY?: boolean;
	/** True when stderr is a terminal (progress may be redrawn in place). Default: `isTTY`. */
	stderrIsTTY?: boolean;
	/** Terminal width in columns, for fitting tool-call lines on one row. Default: 80. */
	columns?: number;
	/**
	 * Subscribes to interrupt requests (Ctrl-C delivered as SIGINT outside raw mode). Returns an
	 * unsubscribe function. While nobody listens the process keeps its default reaction (it dies).
	 * Default: interrupts are never delivered.
	 */
	onInterrupt?: (listener: () => void) => () => void;
}

/** The CLI's process exit codes. */
export const ExitCode = {
	/** Success. */
	ok: 0,
	/** The command ran and failed (an error result, a provider error). */
	error: 1,
	/** Bad usage: unknown command or flag, malformed JSON, missing configuration. */
	usage: 2,
	/** Cancelled by the user (Ctrl-C), as a shell reports death by SIGINT. */
	cancelled: 130,
} as const;

/** Writes `text` to `stream`, resolving once it is flushed (or at least handed to the OS). */
export function writeAndFlush(stream: Writable, text: string): Promise<void> {
	return new Promise((resolve) => {
		stream.write(text, () => resolve());
	});
}

/** The real process as a `CliIO`, and when its output is out. */
export interface ProcessIO extends CliIO {
	/**
	 * Resolves once what was written to stdout and stderr is handed to the OS (before the process
	 * exits). Streams never used are not made for it.
	 */
	flushed(): Promise<void>;
}

/**
 * True when `descriptor` is a terminal. Only a character device can be one: a pipe, a file or a
 * closed descriptor is told by its `fstat` alone, without loading `tty` (and `net` and `stream`
 * behind it, ~5 ms of a start). Windows answers consoles its own way: `isatty` is asked there.
 */
function isTerminal(descriptor: number): boolean {
	try {
		return (process.platform === "win32" || fstatSync(descriptor).isCharacterDevice()) && isatty(descriptor);
	} catch {
		return false;
	}
}

/** The process's stdout or stderr. A reader that stops early (`toolbelt tools | head`) closes the pipe: that is not a crash. */
function processOutput(descriptor: 1 | 2): Writable {
	const stream = descriptor === 1 ? process.stdout : process.stderr;
	stream.on("error", (error: NodeJS.ErrnoException) => {
		if (error.code === "EPIPE") process.exit(0);
		throw error;
	});
	return stream;
}

/**
 * The real process as a `CliIO`: its streams, env, cwd and SIGINT. Nothing of it is made before a
 * command asks: Node makes each of stdin, stdout and stderr when first touched (a socket stream
 * for a pipe: `net` and `stream` loaded), and a start that never reads stdin (a read with its
 * arguments given), never writes stderr or writes its result into a file need not pay for them.
 */
export function createProcessIO(): ProcessIO {
	const terminals = new Map<number, boolean>();
	const terminal = (descriptor: number) => {
		let known = terminals.get(descriptor);
		if (known === undefined) {
			known = isTerminal(descriptor);
			terminals.set(descriptor, known);
		}
		return known;
	};
	const outputs = new Map<1 | 2, Writable>();
	const output = (descriptor: 1 | 2) => {
		let stream = outputs.get(descriptor);
		if (!stream) {
			stream = processOutput(descriptor);
			outputs.set(descriptor, stream);
		}
		return stream;
	};
	return {
		get stdin() {
			return process.stdin;
		},
		get stdout() {
			return output(1);
		},
		get stderr() {
			return output(2);
		},
		env: process.env,
		cwd: process.cwd(),
		get isTTY() {
			return terminal(0) && terminal(1);
		},
		get stdinIsTTY() {
			return terminal(0);
		},
		get stderrIsTTY() {
			return terminal(2);
		},
		get columns() {
			return (
				(terminal(1) ? process.stdout.columns : undefined) ?? (terminal(2) ? process.stderr.columns : undefined) ?? 80
			);
		},
		onInterrupt(listener) {
			process.on("SIGINT", listener);
			return () => process.off("SIGINT", listener);
		},
		async flushed() {
			for (const stream of outputs.values()) await writeAndFlush(stream, "");
		},
	};
}

/** Most piped input read: 16 MiB, already far beyond what any model takes in one prompt. */
export const MAX_PIPED_STDIN_BYTES = 16 * 1024 * 1024;

/**
 * Reads all of piped stdin as UTF-8; resolves to undefined when stdin is a terminal. Throws a
 * `UsageError` past `MAX_PIPED_STDIN_BYTES` instead of holding an endless pipe in memory.
 */
export async function readPipedStdin(io: CliIO): Promise<string | undefined> {
	if (io.stdinIsTTY ?? io.isTTY) return undefined;
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of io.stdin) {
		const buffer = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
		size += buffer.length;
		if (size > MAX_PIPED_STDIN_BYTES) {
			throw new UsageError(
				`The piped input is over ${MAX_PIPED_STDIN_BYTES / 1024 / 1024} MB, more than a model can take in one prompt. ` +
					"Save it to a file and name the file in the prompt: the agent reads the parts it needs.",
				{ showHelpHint: false },
			);
		}
		chunks.push(buffer);
	}
	return Buffer.concat(chunks).toString("utf8");
}
