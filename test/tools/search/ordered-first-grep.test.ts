import { describe, expect, it } from "vitest";
import { orderedFirstGrep } from "../../../src/workspace/local/search/path-order/ordered-first-grep.js";
import type { GrepRun, StartGrep } from "../../../src/workspace/local/search/path-order/path-ordered-grep.js";
import { readCallsCountable, readCallsOf } from "../../../src/workspace/local/search/read-calls.js";
import { ripgrepGrepStarter } from "../../../src/workspace/local/search/ripgrep-backend.js";
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

const linux = process.platform === "linux";

describe.skipIf(!linux)(
	"orderedFirstGrep: one ripgrep for a frequent pattern, the every-thread one for a rare pattern",
	() => {
		const dir = useTempDir();
		const request = (pattern: string) => orderedRequest(dir(), pattern);
		const ripgrep = async () => {
			await writeTree(dir(), pathOrderTree(400));
			return bundledRipgrep();
		};
		const answer = (rgPath: string, pattern: string) => orderedAnswer(rgPath, request(pattern));

		/**
		 * Runs `orderedFirstGrep` over real ripgreps. `count`: the ordered one's read count as the
		 * search asks for it (the nth time: n); its lines (and its end) pass only once the count was
		 * asked `gate` times. Counts the searches started and says whether the ordered one was stopped.
		 */
		async function run(
			rgPath: string,
			pattern: string,
			options: { orderedFirstReads: number; count?: (asked: number) => number; gate?: number },
		) {
			const realStart = ripgrepGrepStarter(rgPath, request(pattern));
			const started = { ordered: 1, everyThread: 0 };
			const start: StartGrep = async (pathOrder, signal) => {
				if (pathOrder) started.ordered++;
				else started.everyThread++;
				return realStart(pathOrder, signal);
			};
			const stop = new AbortController();
			const real = await realStart(true, stop.signal);
			let asked = 0;
			let open = () => {};
			const opened = new Promise<void>((resolve) => (open = resolve));
			if ((options.gate ?? 0) === 0) open();
			const gated = async function* () {
				await opened;
				yield* real;
			};
			const first: GrepRun = Object.assign(gated(), {
				readCalls: () => {
					asked++;
					if (asked >= (options.gate ?? 0)) open();
					return options.count ? options.count(asked) : real.readCalls?.();
				},
			});
			const lines = await collectLines(
				orderedFirstGrep({ run: first, stop: () => stop.abort() }, start, new AbortController().signal, {
					orderedFirstReads: options.orderedFirstReads,
				}),
			);
			return { lines, started, orderedStopped: stop.signal.aborted, asked };
		}

		it("counts a process's read calls", async () => {
			expect(readCallsCountable()).toBe(true);
			expect(readCallsOf(process.pid)).toBeGreaterThan(0);
			expect(readCallsOf(2 ** 22 + 1)).toBeUndefined();
		});

		it("keeps the ordered search alone once it gave its probe lines", async () => {
			const rgPath = await ripgrep();
			const ordered = await answer(rgPath, "hit");
			expect(ordered.length).toBe(402);
			const result = await run(rgPath, "hit", { orderedFirstReads: Number.MAX_SAFE_INTEGER });
			expect(result.lines).toEqual(ordered);
			expect(result.started).toEqual({ ordered: 1, everyThread: 0 });
		});

		it("answers from the ordered search alone when it ends before its read count is reached", async () => {
			const rgPath = await ripgrep();
			const ordered = await answer(rgPath, "rare line");
			expect(ordered.map((line) => line.path)).toEqual(["a/x.txt"]);
			const result = await run(rgPath, "rare line", { orderedFirstReads: Number.MAX_SAFE_INTEGER });
			expect(result.lines).toEqual(ordered);
			expect(result.started).toEqual({ ordered: 1, everyThread: 0 });
		});

		it("hands over to the every-thread search once the ordered one read past its count without its probe lines", async () => {
			const rgPath = await ripgrep();
			for (const pattern of ["rare line", "hit"]) {
				const ordered = await answer(rgPath, pattern);
				// Nothing from the ordered search until its count, past the limit at the second look, was read.
				const result = await run(rgPath, pattern, { orderedFirstReads: 10, count: (asked) => asked * 5, gate: 3 });
				expect(result.lines).toEqual(ordered);
				// A frequent pattern then races an ordered search again, as `pathOrderedGrep` does.
				expect(result.started).toEqual({ ordered: pattern === "hit" ? 2 : 1, everyThread: 1 });
				expect(result.orderedStopped).toBe(true);
				expect(result.asked).toBe(2);
			}
		});

		it("decides by the count, not by time: below the limit the ordered search is kept however long it takes", async () => {
			const rgPath = await ripgrep();
			for (const pattern of ["rare line", "hit"]) {
				const ordered = await answer(rgPath, pattern);
				// Its lines wait until the count was looked at 20 times (at least 40 ms).
				const result = await run(rgPath, pattern, { orderedFirstReads: 10, count: () => 9, gate: 20 });
				expect(result.lines).toEqual(ordered);
				expect(result.started).toEqual({ ordered: 1, everyThread: 0 });
				expect(result.asked).toBeGreaterThanOrEqual(20);
			}
		});

		it("gives the ordered answer from ripgrepGrep, by default and with either search first", async () => {
			const rgPath = await ripgrep();
			for (const pattern of ["hit", "rare line", "no such text"]) {
				const ordered = await answer(rgPath, pattern);
				for (const orderedFirstReads of [undefined, 0, 1, Number.MAX_SAFE_INTEGER]) {
					const lines = await grepLines(rgPath, request(pattern), { orderedFirstReads });
					expect(lines).toEqual(ordered);
				}
			}
		});
	},
);
