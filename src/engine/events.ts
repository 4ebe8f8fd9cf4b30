import { monotonicMs } from "./clock.js";
import type { ToolExecutionEvent } from "./types.js";

/** Receives engine events. A listener that throws is ignored, never fatal to the run. */
export type ToolEventListener = (event: ToolExecutionEvent) => void;

/** Calls `listener` with `event`, swallowing anything it throws (sync or async). */
export function emitSafely<TEvent>(listener: ((event: TEvent) => unknown) | undefined, event: TEvent): void {
	if (!listener) return;
	try {
		const returned = listener(event);
		if (returned instanceof Promise) returned.catch(() => {});
	} catch {
		// A broken listener must not break the run it listens to.
	}
}

/**
 * A throttle that delivers the first value at once, then at most one value per interval (the latest),
 * the interval counted from the end of the previous delivery.
 */
export interface Throttle<T> {
	/** Offers a value; it is delivered now or at the end of the current interval. */
	push(value: T): void;
	/** Drops any pending value and stops delivering. */
	close(): void;
}

/** Creates a leading-and-trailing throttle around `deliver`. */
export function createThrottle<T>(intervalMs: number, deliver: (value: T) => void): Throttle<T> {
	let lastDelivery = Number.NEGATIVE_INFINITY;
	let pending: { value: T } | undefined;
	let timer: NodeJS.Timeout | undefined;
	let closed = false;
	const flush = () => {
		timer = undefined;
		if (closed || !pending) return;
		// A timer counts from the event loop's cached time, which lags when the process was kept
		// off the CPU: it can fire before the interval has really passed. Wait out the rest.
		const wait = lastDelivery + intervalMs - monotonicMs();
		if (wait > 0) {
			timer = setTimeout(flush, Math.ceil(wait));
			return;
		}
		const { value } = pending;
		pending = undefined;
		// The interval counts from the end of a delivery, so a slow receiver is never handed the next
		// value sooner than an interval after it finished (and a push made inside `deliver` waits too).
		lastDelivery = monotonicMs();
		try {
			deliver(value);
		} finally {
			lastDelivery = monotonicMs();
		}
	};
	return {
		push(value) {
			if (closed) return;
			pending = { value };
			if (!timer) flush();
		},
		close() {
			closed = true;
			pending = undefined;
			if (timer) clearTimeout(timer);
			timer = undefined;
		},
	};
}

/** Tags an event of a nested call with its parent, unless a deeper level already did. */
export function childEvent(event: ToolExecutionEvent, parentToolCallId: string): ToolExecutionEvent {
	return event.parentToolCallId === undefined ? { ...event, parentToolCallId } : event;
}
