// The changed span is found by comparing blocks before characters; it must be the span a plain
// character-by-character comparison finds, wherever the change falls against the block sizes.
import { describe, expect, it } from "vitest";
import { changedSpan } from "../../src/syntax/changed-span.js";
import { seededRandom } from "./random-edits.js";

function plainSpan(before: string, after: string) {
	const shortest = Math.min(before.length, after.length);
	let start = 0;
	while (start < shortest && before[start] === after[start]) start++;
	let suffix = 0;
	while (suffix < shortest - start && before[before.length - 1 - suffix] === after[after.length - 1 - suffix]) suffix++;
	return { start, oldEnd: before.length - suffix, newEnd: after.length - suffix };
}

describe("changedSpan", () => {
	it("finds the span a character-by-character comparison finds", () => {
		const next = seededRandom(3);
		// Repetitive texts, so that a change may be taken for the text around it (ab|ab -> ab).
		const unit = "ab\n";
		for (let round = 0; round < 1000; round++) {
			const length = Math.floor(next() * 20_000);
			const before = unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
			const start = Math.floor(next() * (before.length + 1));
			const removed = Math.floor(next() * 300);
			const inserted = "xab\n".slice(0, Math.floor(next() * 5)).repeat(Math.floor(next() * 40));
			const after = before.slice(0, start) + inserted + before.slice(start + removed);
			expect(changedSpan(before, after), `round ${round}`).toEqual(plainSpan(before, after));
		}
		expect(changedSpan("", "")).toEqual({ start: 0, oldEnd: 0, newEnd: 0 });
		expect(changedSpan("same", "same")).toEqual({ start: 4, oldEnd: 4, newEnd: 4 });
	});
});
