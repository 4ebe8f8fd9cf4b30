import { describe, expect, it } from "vitest";
import {
	mapLookAlikes,
	normalizeNeedle,
	normalizeText,
	toOriginalSpan,
} from "../../../src/tools/edit/matching/normalize.js";

const ALL = { lineEndings: true, trailingWhitespace: true, unicode: true };

describe("normalizeText", () => {
	it("maps look-alikes one for one, so offsets do not move", () => {
		const text = "“a” ‘b’ – — \u00a0\u202f−";
		const mapped = mapLookAlikes(text);
		expect(mapped).toBe(`"a" 'b' - -   -`);
		expect(mapped.length).toBe(text.length);
	});

	it("removes CR before LF and trailing whitespace, and maps matches back to the original bytes", () => {
		const original = "one  \r\ntwo\t\r\nthree \nfour";
		const view = normalizeText(original, ALL);
		expect(view.text).toBe("one\ntwo\nthree\nfour");
		const needle = normalizeNeedle("two\nthree", ALL);
		const start = view.text.indexOf(needle);
		const span = toOriginalSpan(view, original, { start, end: start + needle.length });
		// Interior whitespace and CRs belong to the span; the trailing blank after "three" does not.
		expect(original.slice(span.start, span.end)).toBe("two\t\r\nthree");
	});

	it("keeps deleted characters just before a match outside it, but never splits CRLF", () => {
		const original = "a   \r\nb";
		const view = normalizeText(original, ALL);
		const start = view.text.indexOf("\nb");
		const span = toOriginalSpan(view, original, { start, end: start + 2 });
		expect(original.slice(span.start, span.end)).toBe("\r\nb");
		const spaces = "a   \nb";
		const lfView = normalizeText(spaces, ALL);
		const lfStart = lfView.text.indexOf("\nb");
		const lfSpan = toOriginalSpan(lfView, spaces, { start: lfStart, end: lfStart + 2 });
		expect(spaces.slice(lfSpan.start, lfSpan.end)).toBe("\nb");
	});

	it("only touches CRLF pairs when only line endings are tolerated", () => {
		const view = normalizeText("a \r\nb\rc\r\n", { lineEndings: true, trailingWhitespace: false, unicode: false });
		expect(view.text).toBe("a \nb\rc\n");
	});
});

describe("normalizing is linear", () => {
	it("a run of a million blanks inside a line (a regex with a lookahead backtracks over it for minutes)", () => {
		const blanks = " ".repeat(1_000_000);
		const original = `a${blanks}b  \r\nc${blanks}\r\n`;
		const started = performance.now();
		const view = normalizeText(original, ALL);
		expect(performance.now() - started).toBeLessThan(2000);
		expect(view.text).toBe(`a${blanks}b\nc\n`);
		expect(normalizeNeedle(`x${blanks}y${blanks}`, ALL)).toBe(`x${blanks}y`);
		expect(normalizeText("a \r\r\n", { lineEndings: false, trailingWhitespace: true, unicode: false }).text).toBe(
			"a \r\r\n",
		);
	});
});
