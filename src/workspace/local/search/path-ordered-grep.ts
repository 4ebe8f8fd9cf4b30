import { stoppableSignal } from "../../../engine/index.js";
import { comparePaths } from "../../search/sort-paths.js";
import type { GrepLine } from "../../search/types.js";

/** Starts one ripgrep over the folder: in path order (`--sort path`, one thread) or not (every thread). */
export type StartGrep = (pathOrder: boolean, signal: AbortSignal) => Promise<AsyncIterable<GrepLine[]>>;

/** The search `pathOrderedGrep` starts with, started by the caller (so that one that cannot start rejects there). */
export interface StartedGrep {
	/** Its lines. */
	run: AsyncIterable<GrepLine[]>;
	/** True for the path-ordered search (then tried first), false for the every-thread one. */
	pathOrder: boolean;
	/** Ends it at once (its pending read then ends too). */
	stop(): void;
}

/** How `pathOrderedGrep` decides between its two ways of giving matches in path order. */
export interface PathOrderedGrepOptions {
	/**
	 * How long the path-ordered search runs before it is judged. Default: 8 ms. 0: no such trial,
	 * the every-thread search first (where a stopped search goes on for a while, as a remote one
	 * does until its next write fails, a trial would cost more than it saves).
	 */
	probeMs?: number;
	/** Lines it must have given by then to be kept (a frequent pattern: the caller stops soon). Default: 100. */
	probeLines?: number;
	/** Most lines the every-thread search may hold for sorting; past it, the path-ordered search answers. Default: 4,000. */
	maxHeldLines?: number;
	/** Most characters of line text it may hold. Default: 4 Mi. */
	maxHeldChars?: number;
	/** Longest it may run before the path-ordered search answers instead. Default: 5 s. */
	maxHeldMs?: number;
}

const DEFAULTS: Required<PathOrderedGrepOptions> = {
	probeMs: 8,
	probeLines: 100,
	maxHeldLines: 4000,
	maxHeldChars: 4 * 2 ** 20,
	maxHeldMs: 5000,
};

/**
 * Matches of a folder search in path order, from whichever ripgrep gives them sooner. `--sort
 * path` lets the caller stop at its limit with the first matches (a frequent pattern ends in a
 * few milliseconds), but it runs on one thread: a rare pattern, for which the whole tree is read
 * anyway, takes twice as long as an every-thread search. So the ordered search (`first`, already
 * started, unless `probeMs` is 0) runs first; when it gives few lines in its first `probeMs`, it is stopped and an
 * every-thread search runs instead, whose lines are held (bounded) and handed out sorted by path
 * — the very order and lines the ordered search gives, so the caller's text is the same. When
 * that search finds more than it may hold, or runs longer than `maxHeldMs`, a second ordered
 * search answers after all.
 */
export async function* pathOrderedGrep(
	first: StartedGrep,
	start: StartGrep,
	signal: AbortSignal,
	options: PathOrderedGrepOptions = {},
): AsyncGenerator<GrepLine[]> {
	const settings = { ...DEFAULTS, ...options };
	let everyThread = first;
	if (first.pathOrder) {
		const probe = yield* probeOrdered(first, settings);
		if (probe === "kept") return;
		everyThread = await startStoppable(start, signal);
	}
	const held = await heldEveryThread(everyThread, settings);
	if (held) {
		if (held.length > 0) yield held;
		return;
	}
	yield* await start(true, signal);
}

/** Starts the every-thread search with a stop of its own. */
async function startStoppable(start: StartGrep, signal: AbortSignal): Promise<StartedGrep> {
	const own = stoppableSignal(signal);
	const run = await start(false, own.signal);
	return { run, pathOrder: false, stop: own.stop };
}

/**
 * Reads `batches` until the stream ends ("ended"), `take` returns false ("enough"), or `ms` pass
 * ("late": the pending read is left to end with the stream's stop).
 */
async function readFor<TBatch>(
	batches: AsyncIterator<TBatch>,
	ms: number,
	take: (batch: TBatch) => boolean,
): Promise<"ended" | "enough" | "late"> {
	let timer: NodeJS.Timeout | undefined;
	const late = new Promise<"late">((resolve) => {
		timer = setTimeout(() => resolve("late"), ms);
	});
	try {
		for (;;) {
			const next = batches.next();
			const result = await Promise.race([next, late]);
			if (result === "late") {
				next.catch(() => {});
				return "late";
			}
			if (result.done) return "ended";
			if (!take(result.value)) return "enough";
		}
	} finally {
		clearTimeout(timer);
	}
}

/** Runs the ordered search for `probeMs`: "kept" when it answered (whole, or going on), else "stopped". */
async function* probeOrdered(
	ordered: StartedGrep,
	settings: Required<PathOrderedGrepOptions>,
): AsyncGenerator<GrepLine[], "kept" | "stopped"> {
	const lines = ordered.run[Symbol.asyncIterator]();
	const held: GrepLine[][] = [];
	let count = 0;
	const outcome = await readFor(lines, settings.probeMs, (batch) => {
		held.push(batch);
		count += batch.length;
		return count < settings.probeLines;
	});
	if (outcome === "late") {
		// Its pending read ends with the stop (an abort of its own): nothing to report.
		ordered.stop();
		return "stopped";
	}
	yield* held;
	yield* { [Symbol.asyncIterator]: () => lines };
	return "kept";
}

/**
 * Every line of an every-thread search sorted by path, or undefined when there were more than may
 * be held, or it ran past `maxHeldMs` (then the ordered search answers: a search that runs into
 * its timeout keeps what it found in path order, as before, where held lines would be lost).
 */
async function heldEveryThread(
	everyThread: StartedGrep,
	settings: Required<PathOrderedGrepOptions>,
): Promise<GrepLine[] | undefined> {
	const batches = everyThread.run[Symbol.asyncIterator]();
	const lines: GrepLine[] = [];
	let chars = 0;
	const outcome = await readFor(batches, settings.maxHeldMs, (batch) => {
		for (const line of batch) {
			lines.push(line);
			chars += line.text.length;
		}
		return lines.length <= settings.maxHeldLines && chars <= settings.maxHeldChars;
	});
	if (outcome !== "ended") {
		everyThread.stop();
		batches.return?.().catch(() => {});
		return undefined;
	}
	// Stable: a file's lines keep ripgrep's order (each file's lines come together).
	return lines.sort((left, right) => comparePaths(left.path, right.path));
}
