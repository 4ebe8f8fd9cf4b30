import { describe, expect, it } from "vitest";
import { createGrepTool } from "../../../src/tools/grep.js";
import { GrepMatchTally } from "../../../src/tools/search/grep/match-tally.js";
import type { GrepLine } from "../../../src/workspace/search/types.js";
import { resultText } from "../../helpers/results.js";
import { useTempDir } from "../../helpers/temp-dir.js";
import { backends, writeTree } from "./fixtures.js";

const temp = useTempDir();

/** `count` lines that each match `word` and differ in more than numbers (nothing collapses). */
function distinctLines(word: string, count: number, tag: string): string {
	const names = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"];
	return `${Array.from({ length: count }, (_, index) => `${word} ${names[index % names.length]}${tag} here`).join("\n")}\n`;
}

describe("a grep result cut by the limit", () => {
	const texts: string[] = [];
	for (const { name, backend } of backends) {
		it(`ends with a digest of the matches not shown, file by file (${name})`, async () => {
			const files: Record<string, string> = {};
			for (let index = 1; index <= 12; index++) {
				files[`gen/g${String(index).padStart(2, "0")}.ts`] = Array.from(
					{ length: 10 },
					(_, line) => `export const v${line} = load(${line}); // TODO`,
				).join("\n");
			}
			files["lib/a.ts"] = "x\n// TODO: first in lib\ny\n// TODO: second in lib\n";
			files["z.txt"] = "TODO once\n";
			await writeTree(temp(), files);
			const result = await createGrepTool(temp(), { backend }).execute("1", { pattern: "TODO", limit: 3 }, undefined);
			const text = resultText(result);
			expect(text).toBe(
				[
					"gen/g01.ts:1: export const v0 = load(0); // TODO",
					"gen/g01.ts:2: export const v1 = load(1); // TODO",
					"gen/g01.ts:3: export const v2 = load(2); // TODO",
					"",
					"[Cut by the limit of 3 matches: 3 matches shown of 123, from 1 file of 14. Matches not shown, file by file (a file with none shown gives its first):]",
					"gen/g01.ts: 7 more matches after line 3, the last at line 10",
					"gen/g02.ts:1: export const v0 = load(0); // TODO  [1 of 10 matches, lines 1–10]",
					"[… 9 more files alike but for numbers: 90 matches]",
					"gen/g12.ts:1: export const v0 = load(0); // TODO  [1 of 10 matches, lines 1–10]",
					"lib/a.ts:2: // TODO: first in lib  [1 of 2 matches, lines 2–4]",
					"z.txt:1: TODO once  [its only match]",
					'[For the rest: grep one file or folder by path (e.g. path: "gen/g01.ts"); narrow with include, exclude or a more specific pattern; raise limit (e.g. limit: 6).]',
				].join("\n"),
			);
			expect(result.details?.cut).toEqual({
				shownMatches: 3,
				totalMatches: 123,
				shownFiles: 1,
				totalFiles: 14,
				collapsedMatches: 0,
				countsComplete: true,
				outputCut: false,
			});
			texts.push(text);
		});
	}

	it("reads the same from both backends", () => {
		expect(texts).toHaveLength(2);
		expect(texts[0]).toBe(texts[1]);
	});

	for (const { name, backend } of backends) {
		it(`sums the files beyond the digest by folder, and names a path to pass back (${name})`, async () => {
			const files: Record<string, string> = {};
			for (const folder of ["app/models", "app/views", "docs"]) {
				for (let index = 0; index < 40; index++) {
					files[`${folder}/f${index}.md`] = distinctLines("needle", 2, `${folder.length}x${index}`);
				}
			}
			await writeTree(temp(), files);
			const result = await createGrepTool(temp(), { backend }).execute(
				"1",
				{ pattern: "needle", path: ".", limit: 1 },
				undefined,
			);
			const digest = resultText(result).split("\n\n")[1] ?? "";
			const lines = digest.split("\n");
			// The listing stops at its room (60 lines with the header, summary and next steps).
			expect(lines.length).toBeLessThanOrEqual(60);
			expect(lines[1]).toBe("app/models/f0.md: 1 more match after line 1");
			const summary = lines.find((line) => line.startsWith("[… and "));
			// The listing takes the files in path order: what it had no room for is summed by folder.
			expect(summary).toMatch(
				/^\[… and \d+ more matches not listed, in (\d+) files: docs\/ \d+ matches in \1 files\]$/,
			);
			expect(lines.filter((line) => line.startsWith("docs/")).length).toBeGreaterThan(0);
			expect(lines.at(-1)).toContain('(e.g. path: "app/models/f0.md")');
			// Every match is counted somewhere: shown, listed or summed.
			expect(result.details?.cut).toMatchObject({ shownMatches: 1, totalMatches: 240, totalFiles: 120 });
		});
	}
});

describe("a grep result cut by the output budget", () => {
	for (const { name, backend } of backends) {
		it(`gives every file its first match before any file its second (${name})`, async () => {
			await writeTree(temp(), {
				"a/first.txt": distinctLines("hit", 200, "a"),
				"b/second.txt": distinctLines("hit", 5, "b"),
				"c/third.txt": distinctLines("hit", 5, "c"),
			});
			const result = await createGrepTool(temp(), { backend, maxBytes: 6000 }).execute(
				"1",
				{ pattern: "hit", limit: 1000 },
				undefined,
			);
			const text = resultText(result);
			const [body = "", digest = ""] = text.split("\n\n");
			expect(Buffer.byteLength(text)).toBeLessThanOrEqual(6000);
			expect(body).toContain("a/first.txt:1: hit alphaa here");
			expect(body).toContain("b/second.txt:1: hit alphab here");
			expect(body).toContain("c/third.txt:1: hit alphac here");
			// The rest of the budget goes to the files in path order: the first file gets more.
			expect(body).toContain("a/first.txt:2: hit bravoa here");
			expect(body).not.toContain("b/second.txt:2:");
			expect(digest).toMatch(/^\[Cut by the output budget of 5\.9 KB or 2000 lines: \d+ matches shown of 210,/);
			expect(digest).toMatch(/\na\/first\.txt: \d+ more matches after line \d+, the last at line 200\n/);
			expect(digest).toContain("\nb/second.txt: 4 more matches after line 1, the last at line 5\n");
			expect(digest).toContain("narrow with include, exclude or a more specific pattern; lower context");
			expect(result.details).toMatchObject({ outputTruncated: true, cut: { outputCut: true, totalMatches: 210 } });
		});

		it(`collapses near-identical matches before it cuts any (${name})`, async () => {
			const lines = Array.from({ length: 300 }, (_, index) => `warning: unused variable tmp${index} in build step`);
			await writeTree(temp(), { "build.log": `${lines.join("\n")}\nerror: the one that matters\n` });
			const result = await createGrepTool(temp(), { backend, maxBytes: 4000 }).execute(
				"1",
				{ pattern: "warning|error", limit: 1000 },
				undefined,
			);
			const text = resultText(result);
			expect(text.split("\n\n")[0]).toBe(
				[
					"build.log:1: warning: unused variable tmp0 in build step",
					"[… 298 near-identical matches of build.log (differing only in numbers, lines 2–299) collapsed]",
					"build.log:300: warning: unused variable tmp299 in build step",
					"build.log:301: error: the one that matters",
				].join("\n"),
			);
			expect(result.details?.cut).toMatchObject({ shownMatches: 301, collapsedMatches: 298, outputCut: true });
		});
	}
});

describe("GrepMatchTally", () => {
	const match = (path: string, lineNumber: number): GrepLine => ({
		kind: "match",
		path,
		lineNumber,
		text: `m ${path}`,
	});
	const stream = (paths: string[]) => paths.flatMap((path) => [match(path, 1), match(path, 5)]);

	it("tallies the same files whatever order they arrive in, in bounded memory", () => {
		const paths = Array.from({ length: 20 }, (_, index) => `d${index % 3}/f${String(index).padStart(2, "0")}`);
		const forward = new GrepMatchTally(3);
		forward.add(stream(paths));
		const backward = new GrepMatchTally(3);
		for (const path of [...paths].reverse()) backward.add(stream([path]));
		expect(forward.result()).toEqual(backward.result());
		const { files, folders } = forward.result();
		expect(files.map((file) => file.path)).toEqual(["d0/f00", "d0/f03", "d0/f06"]);
		expect(files[0]).toMatchObject({ matches: 2, firstLine: 1, lastLine: 5, sample: "m d0/f00" });
		expect(folders.get("d0/")).toEqual({ matches: 8, files: 4 });
		expect(folders.get("d1/")).toEqual({ matches: 14, files: 7 });
		expect(forward.totalFiles).toBe(20);
		expect(forward.totalMatches).toBe(40);
	});

	it("folds folders beyond maxFolders into their first path segment", () => {
		const paths = ["a/x/f1", "a/x/f2", "b/y/f3"];
		const capped = new GrepMatchTally(1, { maxFolders: 1 });
		capped.add(stream(paths));
		expect([...capped.result().folders.keys()]).toEqual(["a/x/", "b/"]);
		const uncapped = new GrepMatchTally(1);
		uncapped.add(stream(paths));
		expect([...uncapped.result().folders.keys()]).toEqual(["a/x/", "b/y/"]);
	});

	it("cuts each sample to sampleLength characters around its match", () => {
		const tally = new GrepMatchTally(1, { sampleLength: 20 });
		tally.add([{ kind: "match", path: "f", lineNumber: 1, text: `${"x".repeat(100)} needle`, matchStart: 101 }]);
		const sample = tally.result().files[0]?.sample ?? "";
		expect(sample).toContain("needle");
		expect(sample).not.toContain("x".repeat(30));
	});
});

describe("the folder summary of a cut grep result", () => {
	for (const { name, backend } of backends) {
		it(`names top-level and root folders once each (${name})`, async () => {
			const files: Record<string, string> = { "top.txt": "needle\n", "lib/z/deep/last.txt": "needle at depth\n" };
			// Tags of letters, not numbers: files alike but for numbers would collapse into one line.
			const tag = (index: number) => String.fromCharCode(97 + (index % 26), 97 + Math.floor(index / 26));
			for (let index = 0; index < 70; index++) files[`lib/f${tag(index)}.txt`] = distinctLines("needle", 1, tag(index));
			await writeTree(temp(), files);
			const result = await createGrepTool(temp(), { backend }).execute("1", { pattern: "needle", limit: 1 }, undefined);
			const summary = resultText(result)
				.split("\n")
				.find((line) => line.startsWith("[… and "));
			expect(summary).toMatch(/^\[… and \d+ more matches not listed, in \d+ files: (lib\/|\.\/) /);
			expect(summary).not.toContain("//");
		});
	}
});
