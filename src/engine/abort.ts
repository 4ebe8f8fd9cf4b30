import { AbortError } from "./errors.js";

/** Options of `raceAbort`. */
export interface RaceAbortOptions<TAbandoned> {
	/** The signal to race against. Default: none — the task is awaited as it is. */
	signal?: AbortSignal;
	/**
	 * How long to wait after the abort for the task to honour it before it is abandoned, in ms.
	 * 0 abandons in the abort event itself. Default: 0.
	 */
	graceMs?: number;
	/**
	 * Asked when the grace ends: false keeps waiting for the task (e.g. it has started and owns the
	 * abort from then on). Contract: must not throw. Default: always abandon.
	 */
	mayAbandon?: () => boolean;
	/**
	 * What the race settles with when the task is abandoned: its return value resolves the race, a
	 * throw rejects it. Default: throws `AbortError`.
	 */
	abandon?: () => TAbandoned;
}

function abortError(): never {
	throw new AbortError();
}

/**
 * The one abort-with-grace race: settles as `task` does, unless `signal` aborts and `task` has not
 * settled `graceMs` later — then the task is abandoned (it keeps running, its outcome is ignored)
 * and the race settles with `abandon()`. A task that honours the abort settles itself well within
 * the grace; the grace bounds one that ignores it, so an abort always ends the wait.
 *
 * @example
 * // A tool that ignores the abort is given up on 2 s after it.
 * const result = await raceAbort(tool.execute(id, args, signal), { signal, graceMs: 2000 });
 */
export function raceAbort<T, TAbandoned = never>(
	task: Promise<T>,
	options: RaceAbortOptions<TAbandoned>,
): Promise<T | TAbandoned> {
	const { signal, graceMs = 0, mayAbandon, abandon = abortError as () => TAbandoned } = options;
	if (!signal) return task;
	// An abandoned task may still reject; nobody listens to it any more.
	task.catch(() => {});
	return new Promise<T | TAbandoned>((resolve, reject) => {
		let timer: NodeJS.Timeout | undefined;
		const cleanup = () => {
			signal.removeEventListener("abort", onAbort);
			if (timer) clearTimeout(timer);
		};
		const expire = () => {
			if (mayAbandon && !mayAbandon()) return;
			cleanup();
			try {
				resolve(abandon());
			} catch (error) {
				reject(error);
			}
		};
		function onAbort() {
			if (graceMs > 0) timer = setTimeout(expire, graceMs);
			else expire();
		}
		if (signal.aborted) onAbort();
		else signal.addEventListener("abort", onAbort, { once: true });
		task.then(
			(value) => {
				cleanup();
				resolve(value);
			},
			(error: unknown) => {
				cleanup();
				reject(error);
			},
		);
	});
}

/** A signal that fires on the caller's abort or at a timeout, and tells the two apart. */
export interface Deadline {
	/** Aborts on either cause. */
	signal: AbortSignal;
	/** True when the timeout fired (the result is partial), false when the caller aborted or nothing fired. */
	readonly timedOut: boolean;
	/** Clears the timer, so the deadline never fires after the work it bounded has ended. */
	dispose(): void;
}

/**
 * Combines the caller's abort signal with a timeout of `timeoutMs` milliseconds.
 *
 * Why not `AbortSignal.any([signal, AbortSignal.timeout(ms)])`: `AbortSignal.timeout` cannot be
 * cleared, so a finished search would still fire its signal later; and on Node 20 every
 * `AbortSignal.any` result stays in the source signal's set of dependants for as long as that
 * signal lives (100,000 deadlines on one run's signal: 100,000 entries, about 6 MB, kept after
 * garbage collection). A listener removed by `dispose` holds nothing.
 */
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

/** A signal of its own that also fires when the caller's does (see `stoppableSignal`). */
export interface Stoppable {
	/** Aborts when the caller's signal does, or at `stop`. */
	signal: AbortSignal;
	/** Aborts `signal` (not the caller's). */
	stop(): void;
}

/**
 * A signal that fires when `signal` does or when `stop` is called: what a search stops one of its
 * own processes with. Why not `AbortSignal.any([signal, controller.signal])`: its sources hold its
 * result only weakly, so whether an abort still reaches a listener on it depends on what else keeps
 * it alive (Node has had bugs there); here the listener on `signal` holds it strongly. (A stopped
 * ripgrep that lived on under load, `grep-early-stop.test.ts` under `scripts/test-under-load.sh`,
 * failed less often with this and no more once `runSearch` also aborts its backend's signal at the end.)
 */
export function stoppableSignal(signal: AbortSignal): Stoppable {
	const controller = new AbortController();
	const onAbort = () => controller.abort(signal.reason);
	if (signal.aborted) controller.abort(signal.reason);
	else signal.addEventListener("abort", onAbort, { once: true });
	return {
		signal: controller.signal,
		stop: () => {
			signal.removeEventListener("abort", onAbort);
			controller.abort();
		},
	};
}
