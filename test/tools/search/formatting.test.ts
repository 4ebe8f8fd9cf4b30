import { describe, expect, it } from "vitest";
import { formatListing } from "../../../src/tools/search/format-listing.js";
import { cutAroundMatch } from "../../../src/tools/search/grep/cut-line.js";
import { comparePaths, sortPaths } from "../../../src/workspace/search/sort-paths.js";

describe("cutAroundMatch", () => {
	it("leaves a short line alone", () => {
		expect(cutAroundMatch("short", 0, 500)).toEqual({ text: "short", cut: false });
	});

	it("shows the match of a long line, with markers on both cut ends", () => {
		const line = `${"a".repeat(1000)}MATCH${"b".repeat(1000)}`;
		const { text, cut } = cutAroundMatch(line, 1000, 100);
		expect(cut).toBe(true);
		expect(text).toBe(`[… 980 chars] ${"a".repeat(20)}MATCH${"b".repeat(75)} [925 chars …]`);
	});

	it("keeps the head of a line whose match is near the start, and the tail near the end", () => {
		const line = "x".repeat(1000);
		expect(cutAroundMatch(line, 3, 100).text).toBe(`${"x".repeat(100)} [900 chars …]`);
		expect(cutAroundMatch(line, 990, 100).text).toBe(`[… 900 chars] ${"x".repeat(100)}`);
	});

	it("never splits a surrogate pair", () => {
		const line = "😀".repeat(600);
		const { text } = cutAroundMatch(line, 601, 100);
		expect(text).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
	});
});

describe("comparePaths", () => {
	it("keeps a folder's files together", () => {
		expect(["a-b", "a/c/d", "a/b", "a.txt"].sort(comparePaths)).toEqual(["a/b", "a/c/d", "a-b", "a.txt"]);
	});

	it("agrees with sortPaths, the fast sort used for listings", () => {
		const paths = ["b", "a-b", "a/c/d", "a/b/e", "a.txt", "A", "a/b-c", "a/b/c", ".x", "é/a", "a!/b", "ab/c", "a/bc"];
		expect(sortPaths(paths)).toEqual([...paths].sort(comparePaths));
		const letters = ["a", "b", "-", ".", "_", "A", "ä"];
		let seed = 7;
		const next = () => {
			seed = (seed * 48271) % 2147483647;
			return seed;
		};
		const random = new Set<string>();
		while (random.size < 2000) {
			const segments = Array.from({ length: 1 + (next() % 4) }, () =>
				Array.from({ length: 1 + (next() % 3) }, () => letters[next() % letters.length]).join(""),
			);
			random.add(segments.join("/"));
		}
		// A path that is also a folder of another cannot come from one file system; keep to real listings.
		const listing = [...random].filter((path) => ![...random].some((other) => other.startsWith(`${path}/`)));
		expect(sortPaths(listing)).toEqual([...listing].sort(comparePaths));
	});
});

describe("formatListing", () => {
	it("keeps the sorted head that fits the line and byte budget, counting the whole listing", () => {
		const paths = ["b/2.txt", "a/1.txt", "c/3.txt", "a/0.txt"];
		expect(formatListing(paths, { maxLines: 2, maxBytes: 1000 })).toEqual({
			text: "a/0.txt\na/1.txt",
			shownPaths: 2,
			shownBytes: 15,
			listedPaths: 4,
			totalBytes: 31,
		});
		// A limit lists the first paths in path order, and the totals are those of the listing.
		expect(formatListing(paths, { maxLines: 1, maxBytes: 1000, limit: 3 })).toEqual({
			text: "a/0.txt",
			shownPaths: 1,
			shownBytes: 7,
			listedPaths: 3,
			totalBytes: 23,
		});
		expect(formatListing(paths, { maxLines: 10, maxBytes: 20 })).toMatchObject({
			text: "a/0.txt\na/1.txt",
			shownPaths: 2,
		});
		expect(formatListing(paths, { maxLines: 10, maxBytes: 1000 }).shownPaths).toBe(4);
	});

	it("counts the whole listing's bytes across folders, also when it shows only part", () => {
		const paths = ["b/2.txt", "a/1.txt", "c/é.txt", "a/0.txt", "top.md", "a/d/x"];
		const whole = paths.join("\n");
		expect(formatListing(paths, { maxLines: 1, maxBytes: 1000 }).totalBytes).toBe(Buffer.byteLength(whole));
		expect(formatListing(paths, { maxLines: 100, maxBytes: 1000 }).totalBytes).toBe(Buffer.byteLength(whole));
	});

	it("cuts a single path longer than the byte budget", () => {
		expect(formatListing(["é".repeat(10)], { maxLines: 10, maxBytes: 5 })).toMatchObject({
			text: "éé",
			shownPaths: 1,
			shownBytes: 4,
		});
	});
});
