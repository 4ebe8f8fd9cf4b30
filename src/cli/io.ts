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

/** The real process as a `CliIO`: process streams, env, cwd and SIGINT. */
export function createProcessIO(): CliIO {
	// A reader that stops early (`toolbelt tools | head`) closes the pipe; that is not a crash.
	for (const stream of [process.stdout, process.stderr]) {
		stream.on("error", (error: NodeJS.ErrnoException) => {
			if (error.code === "EPIPE") process.exit(0);
			throw error;
		});
	}
	// isatty, not process.stdin.isTTY: a piped stdin becomes a socket stream when first touched,
	// which a start that never reads it (a read with its arguments given) need not pay for.
	const stdinIsTTY = isatty(0);
	return {
		get stdin() {
			return process.stdin;
		},
		stdout: process.stdout,
		stderr: process.stderr,
		env: process.env,
		cwd: process.cwd(),
		isTTY: stdinIsTTY && process.stdout.isTTY === true,
		stdinIsTTY,
		stderrIsTTY: process.stderr.isTTY === true,
		get columns() {
			return process.stdout.columns ?? process.stderr.columns ?? 80;
		},
		onInterrupt(listener) {
			process.on("SIGINT", listener);
			return () => process.off("SIGINT", listener);
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
