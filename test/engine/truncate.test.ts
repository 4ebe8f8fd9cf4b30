import { describe, expect, it } from "vitest";
import {
	countLines,
	cutText,
	formatDuration,
	formatSize,
	truncateHead,
	truncateLine,
	truncateTail,
	utf8Prefix,
	utf8Suffix,
} from "../../src/engine/truncate.js";

const numbered = (count: number) => Array.from({ length: count }, (_, index) => `line ${index + 1}`).join("\n");

describe("truncateTail (keeps the head)", () => {
	it("returns text within limits untouched", () => {
		const text = "a\nb\nc\n";
		const result = truncateTail(text, { maxLines: 3, maxBytes: 100 });
		expect(result).toMatchObject({ content: text, truncated: false, truncatedBy: null, originalLines: 3 });
		expect(result.originalBytes).toBe(6);
	});

	it("cuts by lines and reports counts", () => {
		const result = truncateTail(numbered(10), { maxLines: 3 });
		expect(result.content).toBe("line 1\nline 2\nline 3");
		expect(result).toMatchObject({ truncated: true, truncatedBy: "lines", originalLines: 10, outputLines: 3 });
	});

	it("cuts by bytes at a line boundary", () => {
		const result = truncateTail(numbered(10), { maxBytes: 15 });
		expect(result.content).toBe("line 1\nline 2");
		expect(result).toMatchObject({ truncatedBy: "bytes", outputLines: 2, outputBytes: 13 });
	});

	it("keeps part of a single line longer than the byte limit", () => {
		const result = truncateTail("x".repeat(100), { maxBytes: 10 });
		expect(result.content).toBe("x".repeat(10));
		expect(result).toMatchObject({ truncated: true, truncatedBy: "bytes", partialLine: true, outputLines: 1 });
	});

	it("never splits a multi-byte UTF-8 character or a surrogate pair", () => {
		const text = "é".repeat(10) + "😀".repeat(10);
		for (let maxBytes = 1; maxBytes < 60; maxBytes++) {
			const kept = truncateTail(text, { maxBytes }).content;
			expect(kept).not.toContain("\uFFFD");
			expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(maxBytes);
			expect(text.startsWith(kept)).toBe(true);
		}
	});
});

describe("truncateHead (keeps the tail)", () => {
	it("keeps the last lines", () => {
		const result = truncateHead(numbered(10), { maxLines: 2 });
		expect(result.content).toBe("line 9\nline 10");
		expect(result).toMatchObject({ truncated: true, truncatedBy: "lines", originalLines: 10, outputLines: 2 });
	});

	it("cuts by bytes from the head", () => {
		const result = truncateHead(numbered(10), { maxBytes: 13 });
		expect(result.content).toBe("line 10");
		expect(result.truncatedBy).toBe("bytes");
	});

	it("keeps the end of a single huge line without splitting characters", () => {
		const text = "😀".repeat(50);
		for (let maxBytes = 1; maxBytes < 30; maxBytes++) {
			const result = truncateHead(text, { maxBytes });
			expect(result.content).not.toContain("\uFFFD");
			expect(text.endsWith(result.content)).toBe(true);
			expect(result.content.length % 2).toBe(0);
			expect(result.partialLine).toBe(true);
		}
	});

	it("returns text within limits untouched", () => {
		expect(truncateHead("ok\n").content).toBe("ok\n");
	});
});

describe("truncateLine", () => {
	it("leaves short lines alone", () => {
		expect(truncateLine("short", 10)).toEqual({ text: "short", truncated: false });
	});

	it("cuts long lines with a marker saying how much was cut", () => {
		const result = truncateLine("a".repeat(30), 10);
		expect(result.truncated).toBe(true);
		expect(result.text.startsWith("a".repeat(10))).toBe(true);
		expect(result.text).toContain("20 more characters");
	});

	it("does not split a surrogate pair", () => {
		const result = truncateLine(`abc${"😀".repeat(5)}`, 4);
		expect(result.text.startsWith("abc…")).toBe(true);
		expect(result.text).toContain("10 more characters");
	});
});

describe("cutText", () => {
	it("marks an end cut with what the text is and how much is missing", () => {
		expect(cutText("x".repeat(30), { maxLength: 10 }).text).toBe(
			`${"x".repeat(10)}… [text truncated, 20 more characters]`,
		);
		expect(cutText("x".repeat(30), { maxLength: 10, noun: "line" }).text).toBe(
			`${"x".repeat(10)}… [line truncated, 20 more characters]`,
		);
	});

	it("counts characters already left out, even when the kept text fits", () => {
		expect(cutText("abc", { maxLength: 10, omitted: 7, noun: "line" })).toEqual({
			text: "abc… [line truncated, 7 more characters]",
			truncated: true,
		});
		expect(cutText("x".repeat(12), { maxLength: 10, omitted: 5 }).text).toContain("7 more characters");
	});

	it("keeps a window around an index with a fifth of it before, marking both cut ends", () => {
		const line = `${"a".repeat(1000)}MATCH${"b".repeat(1000)}`;
		expect(cutText(line, { maxLength: 100, around: 1000 })).toEqual({
			text: `[… 980 chars] ${"a".repeat(20)}MATCH${"b".repeat(75)} [925 chars …]`,
			truncated: true,
		});
		expect(cutText("x".repeat(1000), { maxLength: 100, around: 3 }).text).toBe(`${"x".repeat(100)} [900 chars …]`);
		expect(cutText("x".repeat(1000), { maxLength: 100, around: 990 }).text).toBe(`[… 900 chars] ${"x".repeat(100)}`);
	});

	it("never splits a surrogate pair at either end of a window", () => {
		const { text } = cutText("😀".repeat(500), { maxLength: 101, around: 301 });
		expect(text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
	});
});

describe("formatDuration", () => {
	it("writes a clock with tenths and minutes, and a limit as it was given", () => {
		expect(formatDuration(0)).toBe("0.0 s");
		expect(formatDuration(125_000)).toBe("2 m 05 s");
		expect(formatDuration(500, "limit")).toBe("500 ms");
		expect(formatDuration(1500, "limit")).toBe("1.5 s");
		expect(formatDuration(60_000, "limit")).toBe("60 s");
	});
});

describe("helpers", () => {
	it("counts lines like a person", () => {
		expect(countLines("")).toBe(0);
		expect(countLines("a")).toBe(1);
		expect(countLines("a\n")).toBe(1);
		expect(countLines("a\nb")).toBe(2);
		expect(countLines("\n\n")).toBe(2);
	});

	it("counts the lines of a text over a million characters as of a short one", () => {
		// Short texts are counted by one split, long ones line by line: both ways agree.
		const line = "0123456789abcde\n";
		const long = line.repeat(70_000);
		expect(long.length).toBeGreaterThan(1 << 20);
		expect(countLines(long)).toBe(70_000);
		expect(countLines(`${long}tail`)).toBe(70_001);
		expect(countLines(`\n${long}`)).toBe(70_001);
	});

	it("formats sizes", () => {
		expect(formatSize(512)).toBe("512 B");
		expect(formatSize(1536)).toBe("1.5 KB");
		expect(formatSize(2 * 1024 * 1024)).toBe("2.0 MB");
		expect(formatSize(3 * 1024 ** 3)).toBe("3.0 GB");
	});

	it("takes byte-bounded prefixes and suffixes on character boundaries", () => {
		expect(utf8Prefix("aé", 2)).toBe("a");
		expect(utf8Suffix("éa", 2)).toBe("a");
		expect(utf8Prefix("abc", 10)).toBe("abc");
	});
});
