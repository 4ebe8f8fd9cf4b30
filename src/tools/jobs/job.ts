import { monotonicMs } from "../../engine/index.js";
import type {
	ShellExecRequest,
	ShellExecResult,
	ShellInput,
	ShellOperations,
	ShellRunHandle,
} from "../../workspace/index.js";
import { ShellOutputBuffer } from "../shell/output-buffer.js";
import type { JobStatus } from "./types.js";

export type { JobStatus } from "./types.js";

/** What a job is started from. */
export interface JobSpec {
	/** The job's id, e.g. `job-3`. */
	id: string;
	/** The command as the model sent it. */
	command: string;
	/** Runs the command (local, sandboxed or remote). */
	operations: ShellOperations;
	/** The prepared request (shell, arguments, cwd, environment, timeout). */
	request: Omit<ShellExecRequest, "onData" | "openStdin" | "onStart" | "signal">;
	/** Raw bytes of output kept in memory (the tail); the rest is in the full-output file. */
	keptBytes: number;
}

/**
 * One background command: its process tree, its stdin, its output (a bounded tail in memory and
 * a full-output file), and how far the model has read.
 */
export class Job {
	/** The job's id. */
	readonly id: string;
	/** The command as the model sent it. */
	readonly command: string;
	/** When it started (a `monotonicMs()` reading: for its age, not a time of day). */
	readonly startedAt = monotonicMs();
	/** Settles when the shell has exited (or failed to start). */
	readonly ended: Promise<void>;
	/** Bytes of output the model has read. */
	readOffset = 0;
	private readonly output: ShellOutputBuffer;
	private readonly abort = new AbortController();
	private input: ShellInput | undefined;
	private handle: ShellRunHandle | undefined;
	private result: ShellExecResult | undefined;
	private failure: string | undefined;
	private killedBy: string | undefined;
	private readonly listeners = new Set<() => void>();

	constructor(spec: JobSpec) {
		this.id = spec.id;
		this.command = spec.command;
		this.output = new ShellOutputBuffer({ tailBytes: spec.keptBytes });
		this.ended = spec.operations
			.exec({
				...spec.request,
				signal: this.abort.signal,
				onData: (chunk) => {
					const wait = this.output.write(chunk);
					this.notify();
					return wait;
				},
				openStdin: (input) => {
					this.input = input;
				},
				onStart: (handle) => {
					this.handle = handle;
				},
			})
			.then(
				(result) => {
					this.result = result;
				},
				(error: unknown) => {
					this.failure = (error as Error).message;
				},
			)
			.finally(() => this.notify());
	}

	/** The shell's pid, once known. */
	get pid(): number | undefined {
		return this.handle?.pid ?? this.result?.pid;
	}

	/** True while the shell has not exited. */
	get running(): boolean {
		return this.result === undefined && this.failure === undefined;
	}

	/** Bytes of output so far. */
	get totalBytes(): number {
		return this.output.bytesWritten;
	}

	/** Where the job stands. */
	status(): JobStatus {
		if (this.failure !== undefined) return { state: "failed", error: this.failure };
		const result = this.result;
		if (result === undefined) return { state: "running" };
		if (result.exitCode !== null && !result.aborted) return { state: "exited", exitCode: result.exitCode };
		return {
			state: "killed",
			signal: result.signal ?? "SIGKILL",
			...(this.killedBy !== undefined ? { by: this.killedBy } : result.timedOut ? { by: "its timeout" } : {}),
		};
	}

	/** The output the model has not read: raw bytes from the read offset, as far as memory holds them. */
	unread(): ReturnType<ShellOutputBuffer["rawSince"]> {
		return this.output.rawSince(this.readOffset);
	}

	/** The full-output file, when the output outgrew the kept tail. */
	fullOutputPath(): Promise<string | undefined> {
		return this.output.fullOutputSoFar();
	}

	/** Writes `text` to the job's stdin; throws with a message the model can act on. */
	async send(text: string): Promise<void> {
		const input = this.input;
		if (!this.running) throw new Error(`Job ${this.id} has ended, so it cannot take input.`);
		if (input === undefined || !input.writable) {
			throw new Error(
				`The stdin of job ${this.id} is closed (the command closed it, or it cannot take input), so the input was not sent.`,
			);
		}
		await input.write(text);
	}

	/**
	 * Resolves on the next output or the job's end, after `timeoutMs`, or when `signal` aborts
	 * (which cancels only the wait, never the job).
	 */
	waitForActivity(timeoutMs: number, signal?: AbortSignal): Promise<void> {
		if (!this.running || timeoutMs <= 0 || signal?.aborted) return Promise.resolve();
		return new Promise((resolve) => {
			const done = () => {
				clearTimeout(timer);
				this.listeners.delete(done);
				signal?.removeEventListener("abort", done);
				resolve();
			};
			const timer = setTimeout(done, timeoutMs);
			this.listeners.add(done);
			signal?.addEventListener("abort", done, { once: true });
		});
	}

	/** The pids of the job's processes still alive. */
	livePids(): number[] {
		return this.handle?.livePids() ?? [];
	}

	/** Kills the whole tree (the same kill as a timeout); `by` is said in its status. */
	async kill(by: string): Promise<void> {
		this.killedBy ??= by;
		this.abort.abort();
		await Promise.all([this.handle?.killTree(), this.ended]);
	}

	/** SIGKILLs the whole tree at once (toolbelt is exiting). */
	killNow(): void {
		this.abort.abort();
		this.handle?.killNow();
	}

	/** Deletes the full-output file (the job is forgotten). */
	discard(): Promise<void> {
		return this.output.discard();
	}

	private notify(): void {
		for (const listener of [...this.listeners]) listener();
	}
}
