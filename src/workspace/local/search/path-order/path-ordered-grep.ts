import { stoppableSignal } from "../../../../engine/index.js";
import type { GrepLine } from "../../../search/types.js";
import { type GrepRun, HeldGrep, type StartedGrep } from "./held-grep.js";

/**
 * Starts one ripgrep over the folder: in path order (`--sort path`, one thread) or not (every
 * thread); `alongside`: beside another one of the same search (see `RipgrepRunOptions.alongside`).
 */
export type StartGrep = (pathOrder: boolean, signal: AbortSignal, alongside?: boolean) => Promise<GrepRun>;

export type { GrepRun, StartedGrep };

/** How `pathOrderedGrep` decides between its two ways of giving matches in path order. */
export interface PathOrderedGrepOptions {
	/**
	 * True: no race, an ordered search only when the every-thread one found more than it may hold
	 * or ran past `maxHeldMs` (where a stopped search goes on for a while, as a remote one does
	 * until its next write fails, running both would cost more than it saves). Default: false.
	 */
	everyThreadFirst?: boolean;
	/**
	 * Lines the every-thread search holds before a path-ordered one is started beside it: a
	 * pattern this frequent may be answered sooner by the ordered search, which the caller's
	 * limit stops early. A rarer pattern is answered by the every-thread search alone. Default: 100.
	 */
	raceAfterLines?: number;
	/**
	 * Lines the ordered search gives before the every-thread one is stopped, or, started first,
	 * before it is kept alone (a frequent pattern: the caller stops soon). Default: 100.
	 */
	probeLines?: number;
	/**
	 * Read calls an ordered search started first may make without giving `probeLines` lines
	 * before the every-thread search takes over (see `orderedFirstGrep`). 0: the every-thread
	 * search starts first. Default: 1,000 where the count can be read (local ripgrep on Linux), else 0.
	 */
	orderedFirstReads?: number;
	/** Most lines the every-thread search may hold for sorting; past it, the path-ordered search answers. Default: 4,000. */
	maxHeldLines?: number;
	/** Most characters of line text it may hold. Default: 4 Mi. */
	maxHeldChars?: number;
	/**
	 * Longest the every-thread search runs alone: past it an ordered search starts (beside it, or
	 * instead of it with `everyThreadFirst`), so a search that runs into its timeout keeps what it
	 * found in path order, where held lines would be lost. Default: 5 s.
	 */
	maxHeldMs?: number;
}

const DEFAULTS: Required<PathOrderedGrepOptions> = {
	everyThreadFirst: false,
	raceAfterLines: 100,
	probeLines: 100,
	orderedFirstReads: 0,
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
 * text is the same. The every-thread search runs first and alone: a rare pattern is read once,
 * by one ripgrep. Once it holds `raceAfterLines` lines (a count, not a clock), an ordered search
 * starts beside it and the two race (`raceOrdered`); a busy machine changes how long the answer
 * takes, never which answer it is.
 */
export async function* pathOrderedGrep(
	everyThread: StartedGrep,
	start: StartGrep,
	signal: AbortSignal,
	options: PathOrderedGrepOptions = {},
): AsyncGenerator<GrepLine[]> {
	const settings = { ...DEFAULTS, ...options };
	const held = new HeldGrep(everyThread, settings);
	try {
		const alone = await held.readUntil(
			settings.everyThreadFirst ? Number.POSITIVE_INFINITY : settings.raceAfterLines,
			settings.maxHeldMs,
		);
		if (alone === "ended") {
			const sorted = held.sorted();
			if (sorted.length > 0) yield sorted;
			return;
		}
		if (alone === "reached" || (alone === "late" && !settings.everyThreadFirst)) {
			yield* raceOrdered(held, await startStoppable(start, true, signal, true), settings);
			return;
		}
		held.stop();
		yield* await start(true, signal);
	} finally {
		held.stop();
	}
}

/**
 * The ordered search's lines are handed on as they come, while the every-thread search goes on
 * holding beside it. Once the ordered one has given `probeLines` lines (a frequent pattern, which
 * the caller's limit ends soon), or the every-thread one found more than it may hold, the
 * every-thread one is stopped and the ordered one answers to its end. When the every-thread one
 * ends first, the ordered one is stopped and the sorted lines after those already given answer.
 */
async function* raceOrdered(
	held: HeldGrep,
	ordered: StartedGrep,
	settings: Required<PathOrderedGrepOptions>,
): AsyncGenerator<GrepLine[]> {
	const lines = ordered.run[Symbol.asyncIterator]();
	const everyThreadEnd = held.readUntil(Number.POSITIVE_INFINITY).then((outcome) => ({ outcome }));
	// Lines given so far, while the race is open.
	const given: GrepLine[] = [];
	let racing = true;
	try {
		for (;;) {
			const next = lines.next();
			const result = racing ? await Promise.race([next, everyThreadEnd]) : await next;
			if ("outcome" in result) {
				racing = false;
				const sorted = result.outcome === "ended" ? held.sorted() : undefined;
				if (sorted && startsWith(sorted, given)) {
					next.catch(() => {});
					ordered.stop();
					if (sorted.length > given.length) yield sorted.slice(given.length);
					return;
				}
				// It found too much (or failed): the ordered search, running all along, answers.
				held.stop();
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
					held.stop();
				}
			}
			yield result.value;
		}
	} finally {
		// Stopped early by the caller, or it failed: ripgrep is killed (a no-op once it ended).
		ordered.stop();
		lines.return?.().catch(() => {});
	}
}

/**
 * Starts a search with a stop of its own (see `StartedGrep`): stopping it kills its ripgrep even
 * while a read is pending, which closing its iterator would not do before the read settles.
 */
export async function startStoppable(
	start: StartGrep,
	pathOrder: boolean,
	signal: AbortSignal,
	alongside?: boolean,
): Promise<StartedGrep> {
	const own = stoppableSignal(signal);
	try {
		return { run: await start(pathOrder, own.signal, alongside), stop: own.stop };
	} catch (error) {
		own.stop();
		throw error;
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
