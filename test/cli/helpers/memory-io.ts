import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Readable, Writable } from "node:stream";
import type { CliIO } from "../../../src/cli/io.js";
import { diagnosticsOffEnv } from "./diagnostics-off.js";

/** A `CliIO` backed by memory, plus what was written to it. */
export interface MemoryIO {
	io: CliIO;
	/** Everything written to stdout so far. */
	stdout(): string;
	/** Everything written to stderr so far. */
	stderr(): string;
	/** Delivers an interrupt (as SIGINT would) to whoever listens. */
	interrupt(): void;
}

function collector(): { stream: Writable; text: () => string } {
	const chunks: string[] = [];
	const stream = new Writable({
		write(chunk: Buffer | string, _encoding, callback) {
			chunks.push(chunk.toString());
			callback();
		},
	});
	return { stream, text: () => chunks.join("") };
}

/** Options of `createMemoryIO`. */
export interface MemoryIOOptions {
	/** Piped stdin content; undefined means stdin is a terminal (never read). */
	stdin?: string;
	/**
	 * Environment; API keys are NOT inherited from the test process. Default: `{}`. `HOME`
	 * defaults to a directory that does not exist, so no test reads the real ~/.toolbelt settings;
	 * diagnostics are off (`diagnosticsOffEnv`) unless `env` sets `TOOLBELT_DIAGNOSTICS`.
	 */
	env?: Record<string, string | undefined>;
	/** Working directory. Default: process.cwd(). */
	cwd?: string;
	/** Whether stdin/stdout are a terminal. Default: false. */
	isTTY?: boolean;
	/** Use this stream as stdin instead (e.g. a PassThrough the test writes keys into). */
	stdinStream?: Readable;
}

const missingHome = join(tmpdir(), `toolbelt-test-no-home-${process.pid}`);

/** An in-memory CliIO for driving `main(argv, io)` in process. */
export function createMemoryIO(options: MemoryIOOptions = {}): MemoryIO {
	const stdout = collector();
	const stderr = collector();
	const listeners = new Set<() => void>();
	const stdin =
		options.stdinStream ?? (options.stdin === undefined ? new PassThrough() : Readable.from([options.stdin]));
	return {
		io: {
			stdin,
			stdout: stdout.stream,
			stderr: stderr.stream,
			env: { HOME: missingHome, ...diagnosticsOffEnv, ...options.env },
			cwd: options.cwd ?? process.cwd(),
			isTTY: options.isTTY ?? false,
			stdinIsTTY: options.stdin === undefined && options.stdinStream === undefined,
			stderrIsTTY: false,
			columns: 100,
			onInterrupt(listener) {
				listeners.add(listener);
				return () => listeners.delete(listener);
			},
		},
		stdout: stdout.text,
		stderr: stderr.text,
		interrupt() {
			for (const listener of [...listeners]) listener();
		},
	};
}
