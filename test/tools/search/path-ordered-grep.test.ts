import { describe, expect, it } from "vitest";
import {
	type PathOrderedGrepOptions,
	pathOrderedGrep,
	type StartGrep,
} from "../../../src/workspace/local/search/path-ordered-grep.js";
import { ripgrepGrep, ripgrepGrepStarter } from "../../../src/workspace/local/search/ripgrep-backend.js";
import { locateRipgrep } from "../../../src/workspace/local/search/ripgrep-path.js";
import type { GrepLine, GrepRequest } from "../../../src/workspace/search/types.js";
import { useTempDir } from "../../helpers/temp-dir.js";
import { writeTree } from "./fixtures.js";

async function collect(batches: AsyncIterable<GrepLine[]>): Promise<GrepLine[]> {
	const lines: GrepLine[] = [];
	for await (const batch of batches) lines.push(...batch);
	return lines;
}

async function linesOf(rgPath: string, request: GrepRequest, ordering: PathOrderedGrepOptions): Promise<GrepLine[]> {
	return collect(await ripgrepGrep(rgPath, request, new AbortController().signal, undefined, ordering));
}

/** Names whose path order differs from plain string order ("a/x" before "a-b"), and many files. */
function tree(): Record<string, string> {
	const files: Record<string, string> = {
		"a/x.txt": "hit one\nother\nhit two\n",
		"a-b.txt": "hit\n",
		"a.ts": "before\nhit\nafter\n",
		"B.txt": "hit upper\n",
		"b/c/d.txt": "hit deep\n",
		"é.txt": "hit accent\n",
		"z.txt": "no match here\n",
	};
	for (let index = 0; index < 300; index++) files[`many/f${index}.txt`] = `line\nhit ${index}\nline\n`;
	return files;
}

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
	const request = (): GrepRequest => ({
		root: dir(),
		pattern: "hit",
		literal: true,
		caseSensitive: true,
		context: 1,
		respectIgnoreFiles: true,
		pathOrder: true,
	});
	const ripgrep = async () => {
		const rgPath = (await locateRipgrep()).path;
		if (!rgPath) throw new Error("the bundled ripgrep is required");
		await writeTree(dir(), tree());
		return rgPath;
	};
	/** ripgrep --sort path's own answer: the every-thread search may hold nothing, so an ordered one answers alone. */
	const orderedAnswer = (rgPath: string) => linesOf(rgPath, request(), { everyThreadFirst: true, maxHeldLines: 0 });

	it("gives what ripgrep --sort path gives, raced, and from the every-thread search tried first", async () => {
		const rgPath = await ripgrep();
		const ordered = await orderedAnswer(rgPath);
		expect(ordered.length).toBeGreaterThan(900);
		expect(ordered.slice(0, 4).map((line) => line.path)).toEqual(["B.txt", "a/x.txt", "a/x.txt", "a/x.txt"]);
		// The race with its defaults, and with a judgement that never keeps the ordered search.
		expect(await linesOf(rgPath, request(), {})).toEqual(ordered);
		expect(await linesOf(rgPath, request(), { probeLines: Number.MAX_SAFE_INTEGER })).toEqual(ordered);
		// The every-thread search first (remote): held and sorted, or past its time an ordered search.
		expect(await linesOf(rgPath, request(), { everyThreadFirst: true })).toEqual(ordered);
		expect(await linesOf(rgPath, request(), { everyThreadFirst: true, maxHeldMs: 0 })).toEqual(ordered);
	});

	/**
	 * Runs the race over real ripgreps whose pace the test sets: the ordered search gives
	 * `orderedGiven` lines, then waits for `orderedRelease`; the every-thread one waits for its
	 * own release from the start. Counts the searches started.
	 */
	async function race(
		rgPath: string,
		pace: {
			orderedGiven: number;
			orderedRelease(stops: { ordered: Promise<void>; everyThread: Promise<void> }): Promise<void>;
			everyThreadRelease(stops: { ordered: Promise<void>; everyThread: Promise<void> }): Promise<void>;
		},
		options: PathOrderedGrepOptions,
	) {
		const realStart = ripgrepGrepStarter(rgPath, request());
		const orderedStop = new AbortController();
		let everyThreadStopped: Promise<void> = new Promise(() => {});
		const stops = {
			ordered: aborted(orderedStop.signal),
			get everyThread() {
				return everyThreadStopped;
			},
		};
		const started = { ordered: 1, everyThread: 0 };
		const start: StartGrep = async (pathOrder, signal) => {
			if (pathOrder) {
				started.ordered++;
				return realStart(true, signal);
			}
			started.everyThread++;
			everyThreadStopped = aborted(signal);
			return gated(await realStart(false, signal), 0, () => pace.everyThreadRelease(stops));
		};
		const first = gated(await realStart(true, orderedStop.signal), pace.orderedGiven, () => pace.orderedRelease(stops));
		const lines = await collect(
			pathOrderedGrep(
				{ run: first, pathOrder: true, stop: () => orderedStop.abort() },
				start,
				new AbortController().signal,
				options,
			),
		);
		return { lines, started, orderedStopped: orderedStop.signal.aborted };
	}

	it("gives the same answer when the ordered search is slow (a busy machine): the every-thread one ends first", async () => {
		const rgPath = await ripgrep();
		const ordered = await orderedAnswer(rgPath);
		for (const orderedGiven of [0, 5]) {
			// The ordered search gives `orderedGiven` lines, then nothing until it is stopped.
			const result = await race(
				rgPath,
				{ orderedGiven, orderedRelease: (stops) => stops.ordered, everyThreadRelease: async () => {} },
				{},
			);
			expect(result.lines).toEqual(ordered);
			expect(result.orderedStopped).toBe(true);
			expect(result.started).toEqual({ ordered: 1, everyThread: 1 });
		}
	});

	it("keeps the one ordered search when the every-thread one finds more than it may hold", async () => {
		const rgPath = await ripgrep();
		const ordered = await orderedAnswer(rgPath);
		const result = await race(
			rgPath,
			{ orderedGiven: 0, orderedRelease: (stops) => stops.everyThread, everyThreadRelease: async () => {} },
			{ maxHeldLines: 10 },
		);
		expect(result.lines).toEqual(ordered);
		// No second ordered search.
		expect(result.started).toEqual({ ordered: 1, everyThread: 1 });
	});

	it("keeps the ordered search once it gave its probe lines, and stops the every-thread one", async () => {
		const rgPath = await ripgrep();
		const ordered = await orderedAnswer(rgPath);
		const result = await race(
			rgPath,
			{ orderedGiven: 0, orderedRelease: async () => {}, everyThreadRelease: (stops) => stops.everyThread },
			{ probeLines: 50 },
		);
		expect(result.lines).toEqual(ordered);
		expect(result.started).toEqual({ ordered: 1, everyThread: 1 });
	});
});
