import { describe, expect, it } from "vitest";
import {
	type PathOrderedGrepOptions,
	pathOrderedGrep,
	type StartGrep,
} from "../../../src/workspace/local/search/path-order/path-ordered-grep.js";
import { ripgrepGrepStarter } from "../../../src/workspace/local/search/ripgrep-backend.js";
import type { GrepLine } from "../../../src/workspace/search/types.js";
import { useTempDir } from "../../helpers/temp-dir.js";
import { writeTree } from "./fixtures.js";
import {
	bundledRipgrep,
	collectLines,
	grepLines,
	orderedAnswer,
	orderedRequest,
	pathOrderTree,
} from "./ripgrep-fixtures.js";

/** Names whose path order differs from plain string order ("a/x" before "a-b"), and many files. */
const tree = () =>
	pathOrderTree(300, {
		"a/x.txt": "hit one\nother\nhit two\n",
		"a.ts": "before\nhit\nafter\n",
		"B.txt": "hit upper\n",
		"b/c/d.txt": "hit deep\n",
		"é.txt": "hit accent\n",
		"z.txt": "no match here\n",
	});

const aborted = (signal: AbortSignal) =>
	new Promise<void>((resolve) => {
		if (signal.aborted) resolve();
		else signal.addEventListener("abort", () => resolve(), { once: true });
	});

/**
 * A real ripgrep's batches, held back by the test: `given` lines pass (cut to that count), then
 * nothing more (not even the end) until `release()` settles (asked when needed); after it, everything.
 */
async function* gated(
	run: AsyncIterable<GrepLine[]>,
	given: number,
	release: () => Promise<void>,
): AsyncGenerator<GrepLine[]> {
	let passed = 0;
	for await (const batch of run) {
		if (passed < given) {
			const part = batch.slice(0, given - passed);
			passed += part.length;
			yield part;
			if (part.length === batch.length) continue;
			await release();
			yield batch.slice(part.length);
			continue;
		}
		await release();
		yield batch;
	}
	await release();
}

describe("pathOrderedGrep: the same lines in the same order, whichever ripgrep answers", () => {
	const dir = useTempDir();
	const request = (pattern = "hit") => orderedRequest(dir(), pattern, { context: 1 });
	const ripgrep = async () => {
		await writeTree(dir(), tree());
		return bundledRipgrep();
	};
	const answer = (rgPath: string, pattern?: string) => orderedAnswer(rgPath, request(pattern));

	it("gives what ripgrep --sort path gives, alone, raced, and from the every-thread search tried first", async () => {
		const rgPath = await ripgrep();
		const ordered = await answer(rgPath);
		expect(ordered.length).toBeGreaterThan(900);
		expect(ordered.slice(0, 4).map((line) => line.path)).toEqual(["B.txt", "a/x.txt", "a/x.txt", "a/x.txt"]);
		// With its defaults, the every-thread search alone, raced from the start, and with a
		// judgement that never keeps the ordered search.
		expect(await grepLines(rgPath, request(), {})).toEqual(ordered);
		expect(await grepLines(rgPath, request(), { raceAfterLines: Number.MAX_SAFE_INTEGER })).toEqual(ordered);
		expect(await grepLines(rgPath, request(), { raceAfterLines: 0 })).toEqual(ordered);
		expect(await grepLines(rgPath, request(), { probeLines: Number.MAX_SAFE_INTEGER })).toEqual(ordered);
		expect(await grepLines(rgPath, request(), { maxHeldMs: 0 })).toEqual(ordered);
		// The every-thread search first (remote): held and sorted, or past its time an ordered search.
		expect(await grepLines(rgPath, request(), { everyThreadFirst: true })).toEqual(ordered);
		expect(await grepLines(rgPath, request(), { everyThreadFirst: true, maxHeldMs: 0 })).toEqual(ordered);
	});

	/**
	 * Runs the search over real ripgreps whose pace the test sets: the every-thread search gives
	 * `everyThreadGiven` lines, then waits for `everyThreadRelease`; an ordered one, once started,
	 * gives `orderedGiven` lines, then waits for `orderedRelease`. Counts the searches started.
	 */
	async function race(
		rgPath: string,
		pace: {
			everyThreadGiven: number;
			everyThreadRelease(stops: Stops): Promise<void>;
			orderedGiven: number;
			orderedRelease(stops: Stops): Promise<void>;
		},
		options: PathOrderedGrepOptions,
		pattern?: string,
	) {
		const realStart = ripgrepGrepStarter(rgPath, request(pattern));
		const everyThreadStop = new AbortController();
		let orderedSignal: AbortSignal | undefined;
		let orderedStopped: Promise<void> = new Promise(() => {});
		let markOrderedStarted = () => {};
		const orderedStarted = new Promise<void>((resolve) => (markOrderedStarted = resolve));
		const stops: Stops = {
			everyThread: aborted(everyThreadStop.signal),
			get ordered() {
				return orderedStopped;
			},
			orderedStarted,
		};
		const started = { everyThread: 1, ordered: 0 };
		const start: StartGrep = async (pathOrder, signal) => {
			if (!pathOrder) {
				started.everyThread++;
				return realStart(false, signal);
			}
			started.ordered++;
			orderedSignal = signal;
			orderedStopped = aborted(signal);
			markOrderedStarted();
			return gated(await realStart(true, signal), pace.orderedGiven, () => pace.orderedRelease(stops));
		};
		const first = gated(await realStart(false, everyThreadStop.signal), pace.everyThreadGiven, () =>
			pace.everyThreadRelease(stops),
		);
		const lines = await collectLines(
			pathOrderedGrep(
				{ run: first, stop: () => everyThreadStop.abort() },
				start,
				new AbortController().signal,
				options,
			),
		);
		return {
			lines,
			started,
			everyThreadStopped: everyThreadStop.signal.aborted,
			orderedStopped: orderedSignal?.aborted === true,
		};
	}

	it("answers a rare pattern from the every-thread search alone: no ordered search starts", async () => {
		const rgPath = await ripgrep();
		const pattern = "hit upper";
		const ordered = await answer(rgPath, pattern);
		expect(ordered.map((line) => line.path)).toEqual(["B.txt"]);
		const free = { everyThreadGiven: 0, everyThreadRelease: async () => {}, orderedGiven: 0 };
		const result = await race(rgPath, { ...free, orderedRelease: async () => {} }, {}, pattern);
		expect(result.lines).toEqual(ordered);
		expect(result.started).toEqual({ everyThread: 1, ordered: 0 });
		// Also when its lines are many but fewer than the count that starts an ordered search.
		const all = await answer(rgPath);
		const many = await race(rgPath, { ...free, orderedRelease: async () => {} }, { raceAfterLines: all.length + 1 });
		expect(many.lines).toEqual(all);
		expect(many.started).toEqual({ everyThread: 1, ordered: 0 });
	});

	it("starts an ordered search once the every-thread one holds raceAfterLines, and keeps it once it gave its probe lines", async () => {
		const rgPath = await ripgrep();
		const ordered = await answer(rgPath);
		// The every-thread search gives 100 lines, then nothing until it is stopped.
		const result = await race(
			rgPath,
			{
				everyThreadGiven: 100,
				everyThreadRelease: (stops) => stops.everyThread,
				orderedGiven: 0,
				orderedRelease: async () => {},
			},
			{},
		);
		expect(result.lines).toEqual(ordered);
		expect(result.started).toEqual({ everyThread: 1, ordered: 1 });
		expect(result.everyThreadStopped).toBe(true);
	});

	it("gives the same answer when the ordered search is slow (a busy machine): the every-thread one ends first", async () => {
		const rgPath = await ripgrep();
		const ordered = await answer(rgPath);
		for (const orderedGiven of [0, 5]) {
			// The every-thread search goes on once the ordered one started, which gives
			// `orderedGiven` lines, then nothing until it is stopped.
			const result = await race(
				rgPath,
				{
					everyThreadGiven: 100,
					everyThreadRelease: (stops) => stops.orderedStarted,
					orderedGiven,
					orderedRelease: (stops) => stops.ordered,
				},
				{},
			);
			expect(result.lines).toEqual(ordered);
			expect(result.orderedStopped).toBe(true);
			expect(result.started).toEqual({ everyThread: 1, ordered: 1 });
		}
	});

	it("keeps the one ordered search when the every-thread one finds more than it may hold", async () => {
		const rgPath = await ripgrep();
		const ordered = await answer(rgPath);
		// In the race: the ordered search gives nothing until the every-thread one overflowed and stopped.
		const raced = await race(
			rgPath,
			{
				everyThreadGiven: 100,
				everyThreadRelease: async () => {},
				orderedGiven: 0,
				orderedRelease: (stops) => stops.everyThread,
			},
			{ maxHeldLines: 150 },
		);
		expect(raced.lines).toEqual(ordered);
		expect(raced.started).toEqual({ everyThread: 1, ordered: 1 });
		// Before it: the ordered search answers alone.
		const free = { everyThreadGiven: 0, everyThreadRelease: async () => {}, orderedGiven: 0 };
		const alone = await race(rgPath, { ...free, orderedRelease: async () => {} }, { maxHeldLines: 10 });
		expect(alone.lines).toEqual(ordered);
		expect(alone.started).toEqual({ everyThread: 1, ordered: 1 });
		expect(alone.everyThreadStopped).toBe(true);
	});
});

/** Barriers a paced search may wait for. */
interface Stops {
	/** The every-thread search was stopped. */
	everyThread: Promise<void>;
	/** The ordered search was stopped (never, until it started). */
	ordered: Promise<void>;
	/** An ordered search was started. */
	orderedStarted: Promise<void>;
}
