import { raceAbort } from "./abort.js";
import { AbortError } from "./errors.js";
import type { ExecutionMode } from "./types.js";

/** Options of one `CallGate.run`. */
export interface CallGateRunOptions {
	/** `sequential` makes the call a barrier; `parallel` lets it overlap other parallel calls. Default: `parallel`. */
	mode?: ExecutionMode;
	/**
	 * Gives up waiting for a turn: the returned promise rejects with `AbortError` and the task never
	 * starts. Once the task has started, the signal is the task's own business.
	 */
	signal?: AbortSignal;
}

/**
 * Schedules tool calls that arrive one at a time (as over MCP) with the same rule
 * `executeToolCalls` applies within a batch: parallel calls overlap, a sequential call waits for
 * every call that arrived before it and every later call waits for it. Arrival order is kept.
 */
export interface CallGate {
	/** Runs `task` when its turn comes and returns what it returns. */
	run<T>(task: () => Promise<T>, options?: CallGateRunOptions): Promise<T>;
	/** Calls admitted but not yet settled (waiting or running). */
	readonly pending: number;
}

function settled(promise: Promise<unknown>): Promise<void> {
	return promise.then(
		() => undefined,
		() => undefined,
	);
}

function cancelledBeforeStart(): AbortError {
	return new AbortError("The call was cancelled before it started.");
}

function throwCancelledBeforeStart(): never {
	throw cancelledBeforeStart();
}

/** Creates an empty gate. Gates are independent: one per client session is the usual scope. */
export function createCallGate(): CallGate {
	// Resolves when the latest barrier (and everything before it) has finished.
	let barrier: Promise<void> = Promise.resolve();
	// Parallel calls admitted since the latest barrier and still unsettled; the next barrier waits
	// for them. Settled ones leave, so a long run of parallel calls holds no memory for them.
	const sinceBarrier = new Set<Promise<void>>();
	let pending = 0;

	return {
		get pending() {
			return pending;
		},
		run<T>(task: () => Promise<T>, options: CallGateRunOptions = {}): Promise<T> {
			const { signal } = options;
			if (signal?.aborted) return Promise.reject(cancelledBeforeStart());
			const sequential = options.mode === "sequential";
			const turn = sequential ? Promise.all([barrier, ...sinceBarrier]).then(() => undefined) : barrier;
			let started = false;
			const execution = turn.then(() => {
				if (signal?.aborted) throw cancelledBeforeStart();
				started = true;
				return task();
			});
			pending++;
			const done = settled(execution).then(() => {
				pending--;
			});
			if (sequential) {
				barrier = done;
				sinceBarrier.clear();
			} else {
				sinceBarrier.add(done);
				void done.then(() => sinceBarrier.delete(done));
			}
			// Abort while waiting: answer at once; the queued slot still drains in order. Once started,
			// the signal is the task's own business.
			return raceAbort(execution, { signal, mayAbandon: () => !started, abandon: throwCancelledBeforeStart });
		},
	};
}
