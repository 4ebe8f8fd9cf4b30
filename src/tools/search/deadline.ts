/** A signal that fires on the caller's abort or at a timeout, and tells the two apart. */
export interface Deadline {
	/** Aborts on either cause. */
	signal: AbortSignal;
	/** True when the timeout fired (the result is partial), false when the caller aborted. */
	readonly timedOut: boolean;
	/** Clears the timer and the listener. */
	dispose(): void;
}

/** Combines the caller's abort signal with a timeout of `timeoutMs` milliseconds. */
export function startDeadline(signal: AbortSignal | undefined, timeoutMs: number): Deadline {
	const controller = new AbortController();
	let timedOut = false;
	const onAbort = () => controller.abort();
	if (signal?.aborted) controller.abort();
	else signal?.addEventListener("abort", onAbort, { once: true });
	const timer = setTimeout(() => {
		timedOut = true;
		controller.abort();
	}, timeoutMs);
	timer.unref?.();
	return {
		signal: controller.signal,
		get timedOut() {
			return timedOut;
		},
		dispose() {
			clearTimeout(timer);
			signal?.removeEventListener("abort", onAbort);
		},
	};
}
