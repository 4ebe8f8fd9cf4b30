import { Worker } from "node:worker_threads";
import { AbortError, formatDuration, ToolError } from "../../../../engine/index.js";
import { backtrackingWorkerSource } from "./backtracking-worker.js";
import type { LineMatcher } from "./types.js";

/**
 * Longest time one piece of text (a read chunk, at most 256 KB) may take. A pattern that needs
 * more backtracks catastrophically (`(a+)+$` doubles its time with each character of a line).
 */
export const DEFAULT_BACKTRACKING_PIECE_MS = 2000;
/** Heap of the worker thread: the regular expression's own memory, never the files'. */
const WORKER_HEAP_MB = 128;

/** What the worker answers. */
interface WorkerReply {
	id: number;
	result?: number[] | boolean | null;
	error?: string;
}

/**
 * Runs a pattern that only JavaScript's backtracking engine can run (look-ahead,
 * back-references) in a worker thread, one piece of text at a time, so that the search stays
 * bounded: a piece that takes longer than `pieceMs`, or a cancel, terminates the worker, and the
 * event loop of the tool never blocks on the pattern.
 */
export class BacktrackingMatcher implements LineMatcher {
	private readonly worker: Worker;
	private nextId = 0;
	/** Pieces go to the worker one after another: each one's time is its own. */
	private queue: Promise<unknown> = Promise.resolve();
	private failure: Error | undefined;
	private readonly pending = new Map<
		number,
		{ resolve: (reply: WorkerReply) => void; reject: (error: Error) => void }
	>();
	private readonly onAbort = () => this.stop(new AbortError());

	/**
	 * @param options.source The pattern, as JavaScript's RegExp reads it.
	 * @param options.flags RegExp flags (`i`, `u`), without `m`.
	 * @param options.signal Terminates the worker when aborted.
	 * @param options.pieceMs Longest time per piece. Default: `DEFAULT_BACKTRACKING_PIECE_MS`.
	 */
	constructor(private readonly options: { source: string; flags: string; signal: AbortSignal; pieceMs?: number }) {
		this.worker = new Worker(backtrackingWorkerSource, {
			eval: true,
			workerData: { source: options.source, flags: options.flags },
			resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
		});
		// A search that ends without `close` (a crash in the walker) must not keep the process alive.
		this.worker.unref();
		this.worker.on("message", (reply: WorkerReply) => {
			const waiter = this.pending.get(reply.id);
			this.pending.delete(reply.id);
			waiter?.resolve(reply);
		});
		this.worker.on("error", (error) => this.stop(new ToolError(`The pattern could not run: ${error.message}`)));
		if (options.signal.aborted) this.stop(new AbortError());
		else options.signal.addEventListener("abort", this.onAbort, { once: true });
	}

	async firstMatches(text: string): Promise<number[] | null> {
		return (await this.ask("lines", text)) as number[] | null;
	}

	async test(text: string): Promise<boolean> {
		return (await this.ask("test", text)) === true;
	}

	close(): void {
		this.stop(new AbortError());
	}

	private ask(mode: "lines" | "test", text: string): Promise<WorkerReply["result"]> {
		const turn = this.queue.then(() => this.askNow(mode, text));
		this.queue = turn.catch(() => {});
		return turn;
	}

	private askNow(mode: "lines" | "test", text: string): Promise<WorkerReply["result"]> {
		if (this.failure) return Promise.reject(this.failure);
		const id = this.nextId++;
		const pieceMs = this.options.pieceMs ?? DEFAULT_BACKTRACKING_PIECE_MS;
		return new Promise((resolve, reject) => {
			const timer = setTimeout(() => this.stop(tooSlow(pieceMs)), pieceMs);
			this.pending.set(id, {
				resolve: (reply) => {
					clearTimeout(timer);
					if (reply.error !== undefined) reject(new ToolError(`The pattern failed: ${reply.error}`));
					else resolve(reply.result);
				},
				reject: (error) => {
					clearTimeout(timer);
					reject(error);
				},
			});
			this.worker.postMessage({ id, mode, text });
		});
	}

	/** Ends the worker; every piece still waiting fails with `error`. */
	private stop(error: Error): void {
		this.failure ??= error;
		this.options.signal.removeEventListener("abort", this.onAbort);
		for (const waiter of this.pending.values()) waiter.reject(this.failure);
		this.pending.clear();
		void this.worker.terminate();
	}
}

function tooSlow(pieceMs: number): ToolError {
	return new ToolError(
		`The pattern took more than ${formatDuration(pieceMs, "limit")} on one 256 KB piece of a file and was stopped: it backtracks catastrophically (nested quantifiers such as (a+)+, or alternatives that overlap, over a long line). ` +
			"It runs on JavaScript's backtracking engine because it uses look-ahead or a back-reference (the built-in search's linear-time engine has neither). Rewrite it without them, or without the nested quantifier, and search again.",
		{ reason: "pattern-too-slow" },
	);
}
