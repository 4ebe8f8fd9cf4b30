import { AbortError, monotonicMs } from "../../../engine/index.js";

/**
 * The time cap of one PDF read, handed to each step. pdf.js cannot be interrupted inside a
 * synchronous stretch, but it works in slices (it yields between operators and pages), so a stop
 * takes effect at the next slice: the caller's promise rejects at once, and the listeners
 * (destroying the loading task or the document) make pdf.js drop its work and its memory.
 */
export interface TimeCap {
	/** When the cap ends (a `monotonicMs()` reading), for synchronous work that checks it itself. */
	readonly deadline: number;
	/** True once the time is up or the caller cancelled. */
	readonly stopped: boolean;
	/** `promise`, or a rejection with the stop's reason as soon as the cap stops. */
	run<T>(promise: Promise<T>): Promise<T>;
	/** Calls `listener` when the cap stops; returns the function that removes it. */
	onStop(listener: () => void): () => void;
	/** Throws the stop's reason once stopped or past the deadline (stopping the cap then). */
	throwIfStopped(): void;
}

/** Options of `withTimeCap`. */
export interface TimeCapOptions {
	timeoutMs: number;
	signal?: AbortSignal | undefined;
	/** The error thrown when the time is up. */
	timedOut: () => Error;
}

/** Runs `work` under a time cap and the caller's signal, whichever stops first. */
export async function withTimeCap<T>(options: TimeCapOptions, work: (cap: TimeCap) => Promise<T>): Promise<T> {
	const controller = new AbortController();
	const stopped = new Promise<never>((_, reject) => {
		controller.signal.addEventListener("abort", () => reject(controller.signal.reason), { once: true });
	});
	stopped.catch(() => undefined); // only `run` reports it
	const timer = setTimeout(() => controller.abort(options.timedOut()), options.timeoutMs);
	const cancel = () => controller.abort(new AbortError());
	if (options.signal?.aborted) cancel();
	options.signal?.addEventListener("abort", cancel, { once: true });
	const cap: TimeCap = {
		deadline: monotonicMs() + options.timeoutMs,
		get stopped() {
			return controller.signal.aborted;
		},
		run: (promise) => {
			promise.catch(() => undefined); // a step abandoned at a stop must not be an unhandled rejection
			return Promise.race([promise, stopped]);
		},
		onStop: (listener) => {
			controller.signal.addEventListener("abort", listener, { once: true });
			return () => controller.signal.removeEventListener("abort", listener);
		},
		throwIfStopped: () => {
			// The clock too: a timer cannot fire while work runs on promises alone.
			if (!controller.signal.aborted && monotonicMs() > cap.deadline) controller.abort(options.timedOut());
			if (controller.signal.aborted) throw controller.signal.reason;
		},
	};
	try {
		cap.throwIfStopped();
		return await work(cap);
	} finally {
		clearTimeout(timer);
		options.signal?.removeEventListener("abort", cancel);
	}
}
