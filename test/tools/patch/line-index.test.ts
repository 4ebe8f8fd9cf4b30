// The line index answers only "one exact occurrence at or after a position"; everything else goes
// to the full search. Held here to a plain indexOf count over small random files of few distinct
// lines (many repeats, overlaps, first lines that are the ends of longer lines, no final newline).
import { describe, expect, it } from "vitest";
import { LineIndex } from "../../../src/tools/patch/line-index.js";

/** Every start of `needle` in `text` at or after `from`, overlapping ones too. */
function occurrences(text: string, needle: string, from: number): number[] {
	const found: number[] = [];
	for (let index = text.indexOf(needle, from); index !== -1; index = text.indexOf(needle, index + 1)) found.push(index);
	return found;
}

/** A small deterministic generator, so a failure names a case that can be run again. */
function random(seed: number): () => number {
	let state = seed;
	return () => {
		state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
		return state / 2 ** 32;
	};
}

describe("LineIndex.findUnique", () => {
	it("finds the one exact occurrence as indexOf does, and leaves every other case to the full search", () => {
		const words = ["a", "b", "ab", "", "xa", "b b"];
		const next = random(7);
		const pick = () => words[Math.floor(next() * words.length)] as string;
		let unique = 0;
		for (let round = 0; round < 3_000; round++) {
			const fileLines = Array.from({ length: 1 + Math.floor(next() * 12) }, pick);
			const text = fileLines.join("\n") + (next() < 0.7 ? "\n" : "");
			const needle = `${Array.from({ length: 2 + Math.floor(next() * 3) }, pick).join("\n")}\n`;
			const from = Math.floor(next() * (text.length + 1));
			const expected = occurrences(text, needle, from);
			const found = LineIndex.of(text)?.findUnique(needle, from, () => {});
			const label = JSON.stringify({ text, needle, from });
			expect(found, label).toBe(expected.length === 1 ? expected[0] : undefined);
			if (expected.length === 1) unique++;
		}
		expect(unique).toBeGreaterThan(100);
	});

	it("has no index for a file with carriage returns, and does not take a single line", () => {
		expect(LineIndex.of("a\r\nb\r\n")).toBeUndefined();
		expect(LineIndex.of("a\nb\n")?.findUnique("b\n", 0, () => {})).toBeUndefined();
	});

	it("charges each place it tries", () => {
		const text = `${Array.from({ length: 100 }, () => "x\ny").join("\n")}\n`;
		let spent = 0;
		const found = LineIndex.of(text)?.findUnique("q\ny\n", 0, (characters) => {
			spent += characters;
		});
		expect(found).toBeUndefined();
		expect(spent).toBe(100 * "q\ny\n".length);
	});
});
