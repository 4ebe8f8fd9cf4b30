import type { GrepLine } from "../../../search/types.js";
import {
	type PathOrderedGrepOptions,
	pathOrderedGrep,
	type StartedGrep,
	type StartGrep,
	startStoppable,
} from "./path-ordered-grep.js";

/** How often the ordered search's read count is looked at while it has not given its probe lines. */
const POLL_MS = 2;

/** Read calls the ordered search may make before the every-thread one takes over (see `orderedFirstGrep`). */
export const ORDERED_FIRST_READS = 1000;

const TICK = Symbol("tick");

/**
 * Matches of a folder search in path order, one ripgrep start for a frequent pattern: the ordered
 * search (`--sort path`) runs first and alone, its lines held. Once it gave `probeLines` of them
 * the pattern is frequent, and it answers alone (the caller's limit stops it after a few hundred
 * files). When it ends first, its held lines are the answer. When it has made `orderedFirstReads`
 * read calls without giving them (a quarter as many small files, which ripgrep reads in four calls
 * each: a rarer pattern, for which much of the tree is read, on one thread), it is stopped, its few held lines are dropped, and the
 * every-thread search takes over as `pathOrderedGrep` runs it. The count is the ordered ripgrep's
 * own (`GrepRun.readCalls`), not a clock: a busy machine changes how long the answer takes, never
 * which answer it is, nor which search gives it.
 *
 * Where the count cannot be read, the ordered search is not started first: the caller runs
 * `pathOrderedGrep` directly.
 */
export async function* orderedFirstGrep(
	ordered: StartedGrep,
	start: StartGrep,
	signal: AbortSignal,
	options: PathOrderedGrepOptions = {},
): AsyncGenerator<GrepLine[]> {
	const probeLines = options.probeLines ?? 100;
	const maxReads = options.orderedFirstReads ?? ORDERED_FIRST_READS;
	const batches = ordered.run[Symbol.asyncIterator]();
	const held: GrepLine[] = [];
	let pending: Promise<IteratorResult<GrepLine[]>> | undefined;
	let timer: NodeJS.Timeout | undefined;
	let tick: Promise<typeof TICK> | undefined;
	let switched = false;
	try {
		while (held.length < probeLines) {
			pending ??= batches.next();
			tick ??= new Promise((resolve) => (timer = setTimeout(resolve, POLL_MS, TICK)));
			let result = await Promise.race([pending, tick]);
			if (result === TICK) {
				tick = undefined;
				// Undefined: the process id is not known yet (a launched ripgrep's comes later), or the
				// process is gone and its end is on its way.
				if ((ordered.run.readCalls?.() ?? 0) < maxReads) continue;
				// Lines ripgrep wrote before its count was read may wait unread in the pipe: they
				// are read first (the next turn's I/O), so a busy event loop does not switch a
				// frequent pattern.
				result = await Promise.race([pending, new Promise<typeof TICK>((resolve) => setImmediate(resolve, TICK))]);
				if (result === TICK) {
					switched = true;
					break;
				}
			}
			pending = undefined;
			if (result.done) {
				if (held.length > 0) yield held;
				return;
			}
			held.push(...result.value);
		}
		if (!switched) {
			clearTimeout(timer);
			yield held;
			for (;;) {
				const result = await batches.next();
				if (result.done) return;
				yield result.value;
			}
		}
	} finally {
		clearTimeout(timer);
		// Stopped early by the caller: ripgrep is killed (a no-op once it ended).
		if (!switched) stopOrdered();
	}
	let everyThread: StartedGrep;
	try {
		// Started before the ordered one is stopped: a pair's shell starts it only while that runs.
		everyThread = await startStoppable(start, false, signal, true);
	} finally {
		stopOrdered();
	}
	yield* pathOrderedGrep(everyThread, start, signal, options);

	function stopOrdered(): void {
		ordered.stop();
		pending?.catch(() => {});
		batches.return?.().catch(() => {});
	}
}
