import { describe, expect, it } from "vitest";
import { diffEdit } from "../../../src/tools/edit/diff/diff.js";
import type { EditRequest } from "../../../src/tools/edit/matching/match.js";
import { planEdits } from "../../../src/tools/edit/plan.js";
import { stringSource } from "../../../src/tools/edit/text-source.js";

const numbered = (count: number, ending = "\n") =>
	Array.from({ length: count }, (_, index) => `line ${index + 1}`).join(ending) + ending;

function diffOf(content: string, requests: EditRequest[]) {
	const plan = planEdits(content, requests);
	return diffEdit({
		original: stringSource(content),
		updated: stringSource(plan.content),
		replacements: plan.replacements,
		path: "f.txt",
	});
}

const edit = (oldString: string, newString: string): EditRequest => ({ oldString, newString, replaceAll: false });

describe("diffEdit", () => {
	it("shows contextLines lines of context around a change", () => {
		const content = numbered(20);
		const plan = planEdits(content, [edit("line 10\n", "changed\n")]);
		const diff = diffEdit({
			original: stringSource(content),
			updated: stringSource(plan.content),
			replacements: plan.replacements,
			path: "f.txt",
			contextLines: 1,
		});
		expect(diff.text).toBe(
			["--- f.txt", "+++ f.txt", "@@ -9,3 +9,3 @@", " line 9", "-line 10", "+changed", " line 11"].join("\n"),
		);
	});

	it("shows only the changed region of a large file, with real line numbers", () => {
		const diff = diffOf(numbered(100_000), [edit("line 50000\n", "changed\n")]);
		expect(diff.text).toBe(
			[
				"--- f.txt",
				"+++ f.txt",
				"@@ -49997,7 +49997,7 @@",
				" line 49997",
				" line 49998",
				" line 49999",
				"-line 50000",
				"+changed",
				" line 50001",
				" line 50002",
				" line 50003",
			].join("\n"),
		);
		expect(diff.firstChangedLine).toBe(50000);
		expect(diff.added).toBe(1);
		expect(diff.removed).toBe(1);
	});

	it("gives far-apart edits their own hunks and merges close ones", () => {
		const far = diffOf(numbered(100), [edit("line 10\n", "ten\n"), edit("line 90\n", "ninety\n")]);
		expect(far.text.match(/^@@/gm)).toHaveLength(2);
		expect(far.text).toContain("@@ -87,7 +87,7 @@");
		const close = diffOf(numbered(100), [edit("line 10\n", "ten\n"), edit("line 14\n", "fourteen\n")]);
		expect(close.text.match(/^@@/gm)).toHaveLength(1);
	});

	it("counts lines after an insertion in the new file", () => {
		const diff = diffOf(numbered(40), [edit("line 5\n", "a\nb\nc\nline 5\n"), edit("line 30\n", "thirty\n")]);
		expect(diff.text).toContain("@@ -27,7 +30,7 @@");
		expect(diff.firstChangedLine).toBe(5);
	});

	it("counts lines after a deletion and after merged regions in the new file", () => {
		const removed = diffOf(numbered(40), [edit("line 5\nline 6\nline 7\n", ""), edit("line 30\n", "thirty\n")]);
		expect(removed.text).toContain("@@ -27,7 +24,7 @@");
		const merged = diffOf(numbered(60), [
			edit("line 5\n", "x\ny\nline 5\n"),
			edit("line 8\n", "z\nline 8\n"),
			edit("line 50\n", "fifty\n"),
		]);
		expect(merged.text).toContain("@@ -47,7 +50,7 @@");
	});

	it("handles deleting lines at the start and end of a file", () => {
		const start = diffOf(numbered(10), [edit("line 1\n", "")]);
		expect(start.text).toContain("@@ -1,4 +1,3 @@\n-line 1\n line 2");
		const end = diffOf("a\nb\nc", [edit("\nc", "")]);
		expect(end.text).toContain("-c");
		expect(end.text).toContain("\\ No newline at end of file");
	});

	it("does not show the CR of CRLF lines", () => {
		const diff = diffOf(numbered(5, "\r\n"), [edit("line 3", "three")]);
		expect(diff.text).not.toContain("\r");
		expect(diff.text).toContain("-line 3\n+three");
	});

	it("stays fast when a whole large region is replaced", () => {
		const original = numbered(20_000);
		const replacement = Array.from({ length: 20_000 }, (_, index) => `other ${index}`).join("\n");
		const started = performance.now();
		const diff = diffOf(original, [edit(original.slice(0, -1), replacement)]);
		expect(performance.now() - started).toBeLessThan(5000);
		expect(diff.added).toBe(20_000);
		expect(diff.removed).toBe(20_000);
	});
});

describe("diffEdit of a change of 400,000 lines", () => {
	// An edit replacing a 10 MB file's content made every line a diff line (and jsdiff split both
	// texts first): a 10 MB text, of which a call keeps 1 MB and shows 50 KB; 306 MB peak for the call.
	it("makes at most ~2 MB of diff lines, counts every line, and says how many it did not show", () => {
		const content = numbered(400_000);
		const diff = diffOf(content, [edit(content.slice(0, -"line 400000\n".length), "x\n")]);
		expect(diff.removed).toBe(400_000); // the context line after is in the region shown whole
		expect(diff.added).toBe(2);
		expect(diff.firstChangedLine).toBe(1);
		expect(diff.text.length).toBeLessThan(2.2 * 2 ** 20);
		expect(diff.text).toContain("@@ -1,400000 +1,2 @@\n-line 1\n-line 2\n");
		expect(diff.text).toMatch(/\n\[… [\d,]+ more changed lines not shown …\]$/);
	});

	it("still diffs a region of a few thousand lines line by line", () => {
		const content = numbered(5_000);
		const changed = content.replace("line 2500\n", "changed\n");
		const diff = diffOf(content, [edit(content, changed)]);
		expect(diff.text).toContain("-line 2500\n+changed\n");
		expect(diff.removed).toBe(1);
		expect(diff.added).toBe(1);
	});
});
