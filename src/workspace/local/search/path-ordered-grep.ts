import { stoppableSignal } from "../../../engine/index.js";
import { comparePaths } from "../../search/sort-paths.js";
import type { GrepLine } from "../../search/types.js";

/**
 * Starts one ripgrep over the folder: in path order (`--sort path`, one thread) or not (every
 * thread); `alongside`: beside another one of the same search (see `RipgrepRunOptions.alongside`).
 */
export type StartGrep = (
	pathOrder: boolean,
	signal: AbortSignal,
	alongside?: boolean,
) => Promise<AsyncIterable<GrepLine[]>>;

/** The search `pathOrderedGrep` starts with, started by the caller (so that one that cannot start rejects there). */
export interface StartedGrep {
	/** Its lines. */
	run: AsyncIterable<GrepLine[]>;
	/** True for the path-ordered search (then raced), false for the every-thread one (then tried first). */
	pathOrder: boolean;
	/** Ends it at once (its pending read then ends too). */
	stop(): void;
}

/** How `pathOrderedGrep` decides between its two ways of giving matches in path order. */
export interface PathOrderedGrepOptions {
	/**
	 * True: no race, the every-thread search first and an ordered one only when it found more than
	 * it may hold (where a stopped search goes on for a while, as a remote one does until its next
	 * write fails, running both would cost more than it saves). Default: false.
	 */
	everyThreadFirst?: boolean;
	/** Lines the ordered search gives before the every-thread one is stopped (a frequent pattern: the caller stops soon). Default: 100. */
	probeLines?: number;
	/** Most lines the every-thread search may hold for sorting; past it, the path-ordered search answers. Default: 4,000. */
	maxHeldLines?: number;
	/** Most characters of line text it may hold. Default: 4 Mi. */
	maxHeldChars?: number;
	/** With `everyThreadFirst`: longest it may run before an ordered search answers instead. Default: 5 s. */
	maxHeldMs?: number;
}

const DEFAULTS: Required<PathOrderedGrepOptions> = {
	everyThreadFirst: false,
	probeLines: 100,
	maxHeldLines: 4000,
	maxHeldChars: 4 * 2 ** 20,
	maxHeldMs: 5000,
};

/**
 * Matches of a folder search in path order, from whichever ripgrep gives them sooner. `--sort
 * path` lets the caller stop at its limit with the first matches (a frequent pattern ends in a
 * few milliseconds), but it runs on one thread: a rare pattern, for which the whole tree is read
 * anyway, takes twice as long as an every-thread search, whose lines are held (bounded) and
 * handed out sorted by path — the very order and lines the ordered search gives, so the caller's
 * text is the same. The two race (`raceOrdered`); the judgement is by lines given, never by
 * time, so a busy machine changes how long the answer takes, not which answer it is.
 */
export async function* pathOrderedGrep(
	first: StartedGrep,
	start: StartGrep,
	signal: AbortSignal,
	options: PathOrderedGrepOptions = {},
): AsyncGenerator<GrepLine[]> {
	const settings = { ...DEFAULTS, ...options };
	if (first.pathOrder) {
		yield* raceOrdered(first, start, signal, settings);
		return;
	}
	const held = await heldEveryThread(first, settings, settings.maxHeldMs);
	if (held) {
		if (held.length > 0) yield held;
		return;
	}
	yield* await start(true, signal);
}

/** Starts the every-thread search with a stop of its own; undefined when it cannot start (the ordered one answers). */
async function startStoppable(start: StartGrep, signal: AbortSignal): Promise<StartedGrep | undefined> {
	const own = stoppableSignal(signal);
	try {
		const run = await start(false, own.signal, true);
		return { run, pathOrder: false, stop: own.stop };
	} catch {
		own.stop();
		return undefined;
	}
}

/**
 * The ordered search's lines are handed on as they come, while an every-thread search runs beside
 * it. Once the ordered one has given `probeLines` lines (a frequent pattern, which the caller's
 * limit ends soon), or the every-thread one found more than it may hold, the every-thread one is
 * stopped and the ordered one answers to its end. When the every-thread one ends first (a rare
 * pattern), the ordered one is stopped and the sorted lines after those already given answer.
 */
async function* raceOrdered(
	ordered: StartedGrep,
	start: StartGrep,
	signal: AbortSignal,
	settings: Required<PathOrderedGrepOptions>,
): AsyncGenerator<GrepLine[]> {
	const everyThread = await startStoppable(start, signal);
	const lines = ordered.run[Symbol.asyncIterator]();
	if (!everyThread) {
		yield* { [Symbol.asyncIterator]: () => lines };
		return;
	}
	const held = heldEveryThread(everyThread, settings).then((sorted) => ({ sorted }));
	// Lines given so far, while the race is open.
	const given: GrepLine[] = [];
	let racing = true;
	try {
		for (;;) {
			const next = lines.next();
			const result = racing ? await Promise.race([next, held]) : await next;
			if ("sorted" in result) {
				racing = false;
				const { sorted } = result;
				if (sorted && startsWith(sorted, given)) {
					next.catch(() => {});
					ordered.stop();
					if (sorted.length > given.length) yield sorted.slice(given.length);
					return;
				}
				// It found too much: the ordered search, running all along, answers.
				const pending = await next;
				if (pending.done) return;
				yield pending.value;
				continue;
			}
			if (result.done) return;
			if (racing) {
				given.push(...result.value);
				if (given.length >= settings.probeLines) {
					racing = false;
					everyThread.stop();
				}
			}
			yield result.value;
		}
	} finally {
		everyThread.stop();
		// Stopped early by the caller, or it failed: ripgrep is killed (a no-op once it ended).
		ordered.stop();
		lines.return?.().catch(() => {});
	}
}

/** True when `lines` begins with `prefix` (the same lines; a file changed between the two searches may break it). */
function startsWith(lines: readonly GrepLine[], prefix: readonly GrepLine[]): boolean {
	if (prefix.length > lines.length) return false;
	return prefix.every((line, index) => {
		const other = lines[index] as GrepLine;
		return (
			other.path === line.path &&
			other.lineNumber === line.lineNumber &&
			other.kind === line.kind &&
			other.text === line.text
		);
	});
}

/**
 * Every line of an every-thread search sorted by path, or undefined when there were more than may
 * be held, it failed, or it ran past `ms` (then the ordered search answers: a search that runs
 * into its timeout keeps what it found in path order, where held lines would be lost).
 */
async function heldEveryThread(
	everyThread: StartedGrep,
	settings: Required<PathOrderedGrepOptions>,
	ms?: number,
): Promise<GrepLine[] | undefined> {
	const batches = everyThread.run[Symbol.asyncIterator]();
	const lines: GrepLine[] = [];
	let chars = 0;
	let timer: NodeJS.Timeout | undefined;
	const late =
		ms === undefined ? undefined : new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), ms)));
	try {
		for (;;) {
			const next = batches.next();
			const result = late ? await Promise.race([next, late]) : await next;
			if (result === "late") {
				next.catch(() => {});
				break;
			}
			if (result.done) {
				// Stable: a file's lines keep ripgrep's order (each file's lines come together).
				return lines.sort((left, right) => comparePaths(left.path, right.path));
			}
			for (const line of result.value) {
				lines.push(line);
				chars += line.text.length;
			}
			if (lines.length > settings.maxHeldLines || chars > settings.maxHeldChars) break;
		}
	} catch {
		// Failed or stopped: the ordered search answers (and reports a failure of its own).
	} finally {
		clearTimeout(timer);
	}
	everyThread.stop();
	batches.return?.().catch(() => {});
	return undefined;
}
