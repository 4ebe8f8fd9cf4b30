import { describe, expect, it } from "vitest";
import { OrderedGrepCollector } from "../../../src/tools/search/grep/ordered-collector.js";
import type { GrepLine } from "../../../src/workspace/index.js";
import { comparePaths } from "../../../src/workspace/index.js";

/** Files `d<i>/f<j>.ts` with matches at lines 2 and 5 and context around them. */
function lines(): GrepLine[] {
	const all: GrepLine[] = [];
	for (let folder = 0; folder < 6; folder++) {
		for (let file = 0; file < 7; file++) {
			const path = `d${folder}/f${file}.ts`;
			for (const [lineNumber, kind] of [
				[1, "context"],
				[2, "match"],
				[3, "context"],
				[4, "context"],
				[5, "match"],
				[6, "context"],
			] as const) {
				all.push({ path, lineNumber, kind, text: `${kind} ${path} ${lineNumber}` });
			}
		}
	}
	return all;
}

/** The files in an order of their own (every thread: whichever file is done first), each file's lines together. */
function shuffledByFile(all: GrepLine[], seed: number): GrepLine[][] {
	const files = new Map<string, GrepLine[]>();
	for (const line of all) files.set(line.path, [...(files.get(line.path) ?? []), line]);
	const order = [...files.values()];
	let state = seed;
	for (let index = order.length - 1; index > 0; index--) {
		state = (state * 1103515245 + 12345) % 2 ** 31;
		const other = state % (index + 1);
		[order[index], order[other]] = [order[other] as GrepLine[], order[index] as GrepLine[]];
	}
	return order;
}

describe("OrderedGrepCollector", () => {
	it("keeps the first matches in path order, whatever order the files arrive in", () => {
		const all = lines();
		const inOrder = new OrderedGrepCollector({ limit: 9, context: 1, maxLineLength: 500 });
		inOrder.add([...all].sort((left, right) => comparePaths(left.path, right.path)));
		const expected = inOrder.format();
		expect(expected.text.match(/^d\d\/f\d\.ts:\d:/gm)?.length).toBe(9);
		for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
			const collector = new OrderedGrepCollector({ limit: 9, context: 1, maxLineLength: 500 });
			for (const file of shuffledByFile(all, seed)) collector.add(file);
			expect(collector.format().text).toBe(expected.text);
			expect(collector.matchCount).toBe(9);
			expect(collector.limitReached).toBe(true);
		}
	});
});
