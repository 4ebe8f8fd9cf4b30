import { describe, expect, it } from "vitest";
import { createGrepTool } from "../../../src/tools/grep.js";
import { GrepEarlyStop } from "../../../src/tools/search/grep/early-stop.js";
import type { GrepLine } from "../../../src/workspace/search/types.js";
import { resultText } from "../../helpers/results.js";
import { useTempDir } from "../../helpers/temp-dir.js";
import { backends, processesGoneFrom, writeTree } from "./fixtures.js";

const temp = useTempDir();

/** 400 files of three matches each in `a/`, then one file of 200,000 matches in `z/` (4 MB of output). */
async function treeWithLargeLateFile(root: string): Promise<void> {
	const files: Record<string, string> = {};
	for (let index = 0; index < 400; index++) {
		files[`a/f${String(index).padStart(3, "0")}.txt`] = "hit one\nmiss\nhit two\nhit three\n";
	}
	files["z/late.txt"] = "hit in the late file\n".repeat(200_000);
	await writeTree(root, files);
}

describe("grep with a limit over a folder", () => {
	const texts: string[] = [];
	for (const { name, backend } of backends) {
		it(`stops soon after the limit, in path order, and says where (${name})`, async () => {
			await treeWithLargeLateFile(temp());
			const result = await createGrepTool(temp(), { backend }).execute("1", { pattern: "hit", limit: 10 }, undefined);
			const text = resultText(result);
			// The first ten in path order: three files whole, the fourth's first match.
			expect(text.split("\n").slice(0, 10)).toEqual([
				"a/f000.txt:1: hit one",
				"a/f000.txt:3: hit two",
				"a/f000.txt:4: hit three",
				"a/f001.txt:1: hit one",
				"a/f001.txt:3: hit two",
				"a/f001.txt:4: hit three",
				"a/f002.txt:1: hit one",
				"a/f002.txt:3: hit two",
				"a/f002.txt:4: hit three",
				"a/f003.txt:1: hit one",
			]);
			// Counting went on for 150 more files, then stopped: z/late.txt was never counted.
			expect(result.details?.cut).toMatchObject({
				shownMatches: 10,
				totalMatches: 10 + 2 + 150 * 3,
				totalFiles: 154,
				countsComplete: false,
				stoppedAt: { path: "a/f154.txt", lineNumber: 1 },
			});
			expect(text).toContain(
				"[Cut by the limit of 10 matches: 10 matches shown of at least 462, from 4 files of at least 154.",
			);
			expect(text).toContain("a/f003.txt: 2 more matches after line 1, the last at line 4");
			expect(text).toContain(
				"[The search stopped at a/f154.txt:1, soon after the limit: the counts above cover only what came before it. More matches exist from there on, and may exist in the files after it; to see them, narrow path or include, or raise limit.]",
			);
			expect(text).not.toContain("z/");
			texts.push(text);
			// ripgrep, stopped with 4 MB of output unread, does not live on.
			expect(await processesGoneFrom(temp())).toEqual([]);
		});
	}

	it("gives the same text on both backends", () => {
		expect(texts).toHaveLength(2);
		expect(texts[0]).toBe(texts[1]);
	});

	for (const { name, backend } of backends) {
		it(`gives the same result on every call (${name})`, async () => {
			await treeWithLargeLateFile(temp());
			const tool = createGrepTool(temp(), { backend });
			const first = resultText(await tool.execute("1", { pattern: "hit", limit: 50 }, undefined));
			for (let call = 0; call < 3; call++) {
				expect(resultText(await tool.execute("1", { pattern: "hit", limit: 50 }, undefined))).toBe(first);
			}
		});
	}

	for (const { name, backend } of backends) {
		it(`walks a folder's files and sub-folders merged by name before stopping (${name})`, async () => {
			const files: Record<string, string> = { "f150/x.txt": "hit in a folder\n" };
			for (let index = 0; index < 600; index++) files[`f${String(index).padStart(3, "0")}.txt`] = "hit\n";
			await writeTree(temp(), files);
			const result = await createGrepTool(temp(), { backend }).execute("1", { pattern: "hit", limit: 152 }, undefined);
			const shown = resultText(result).split("\n\n")[0]?.split("\n") ?? [];
			// `f150/x.txt` sorts before `f150.txt`, after `f149.txt` (a walk of the files first would miss it).
			expect(shown.slice(-3)).toEqual(["f149.txt:1: hit", "f150/x.txt:1: hit in a folder", "f150.txt:1: hit"]);
			expect(result.details?.cut?.stoppedAt).toEqual({ path: "f301.txt", lineNumber: 1 });
		});
	}

	it("counts every match when the limit is not reached", async () => {
		await treeWithLargeLateFile(temp());
		const result = await createGrepTool(temp(), { backend: "ripgrep" }).execute(
			"1",
			{ pattern: "hit", include: "a/**", limit: 2000 },
			undefined,
		);
		expect(result.details?.matchCount).toBe(1200);
		expect(result.details?.cut?.stoppedAt).toBeUndefined();
	});
});

describe("GrepEarlyStop", () => {
	const match = (path: string, lineNumber: number): GrepLine => ({ kind: "match", path, lineNumber, text: "x" });
	const context = (path: string, lineNumber: number): GrepLine => ({ kind: "context", path, lineNumber, text: "y" });

	it("cuts on the same line however the lines are batched", () => {
		const lines = [match("a", 1), match("a", 2), context("a", 3), match("b", 1), match("c", 1), match("d", 1)];
		const cuts = [1, 2, 6].map((size) => {
			const stop = new GrepEarlyStop(2, 1, { extraMatches: 10, extraFiles: 1 });
			stop.enabled = true;
			let taken = 0;
			for (let start = 0; start < lines.length; start += size) {
				const batch = lines.slice(start, start + size);
				const count = stop.take(batch);
				taken += count;
				if (count < batch.length) break;
			}
			return { taken, stoppedAt: stop.stoppedAt };
		});
		// Two matches, the context after them, one more file counted; stopped at the next file's match.
		for (const cut of cuts) expect(cut).toEqual({ taken: 4, stoppedAt: { path: "c", lineNumber: 1 } });
	});

	it("keeps the context after the last kept match before it stops", () => {
		const stop = new GrepEarlyStop(1, 2, { extraMatches: 0, extraFiles: 0 });
		stop.enabled = true;
		const batch = [match("a", 1), match("a", 2), match("a", 3), match("a", 4)];
		expect(stop.take(batch)).toBe(3);
		expect(stop.stoppedAt).toEqual({ path: "a", lineNumber: 4 });
	});

	it("takes everything while the files may arrive in any order", () => {
		const stop = new GrepEarlyStop(1, 0, { extraMatches: 0, extraFiles: 0 });
		const batch = [match("b", 1), match("a", 1), match("c", 1)];
		expect(stop.take(batch)).toBe(3);
		expect(stop.stoppedAt).toBeUndefined();
	});
});
