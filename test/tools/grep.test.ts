import { execFileSync } from "node:child_process";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { createGrepTool, createGrepToolDefinition, type GrepToolOptions } from "../../src/tools/grep.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { backends, makeFifo, processesIn, releaseFifo, textOf, writeTree } from "./search/fixtures.js";

/** Non-matching lines, more than one read buffer of ripgrep or the walker. */
const PADDING = "pad\n".repeat(100_000);

describe.each(backends)("grep ($name)", ({ backend }) => {
	const dir = useTempDir();
	const grep = (args: Parameters<ReturnType<typeof createGrepTool>["execute"]>[1], options: GrepToolOptions = {}) =>
		createGrepTool(dir(), { backend, ...options }).execute("call", args, undefined);

	it("prints path:line: text with paths relative to the search root, sorted", async () => {
		await writeTree(dir(), {
			"src/b.ts": "const a = 1;\nneedle here\n",
			"src/a/deep.ts": "x\ny\nthe needle\n",
			"top.txt": "needle\n",
		});
		const result = await grep({ pattern: "needle" });
		expect(textOf(result)).toBe("src/a/deep.ts:3: the needle\nsrc/b.ts:2: needle here\ntop.txt:1: needle");
		expect(result.details).toMatchObject({ backend, matchCount: 3, fileCount: 3 });
		expect(result.details?.matchLimitReached).toBeUndefined();
	});

	it("searches below the given path, relative to it", async () => {
		await writeTree(dir(), { "src/lib/x.ts": "needle\n", "other/y.ts": "needle\n" });
		const result = await grep({ pattern: "needle", path: "src" });
		expect(textOf(result)).toBe("lib/x.ts:1: needle");
	});

	it("shows the file name when one file is searched", async () => {
		await writeTree(dir(), { "src/only.ts": "one\nneedle two\n" });
		const result = await grep({ pattern: "needle", path: "src/only.ts" });
		expect(textOf(result)).toBe("only.ts:2: needle two");
	});

	it("merges overlapping context and divides groups with --", async () => {
		const lines = Array.from({ length: 20 }, (_, index) => `line ${index + 1}`);
		lines[4] = "match 5";
		lines[6] = "match 7";
		lines[15] = "match 16";
		await writeTree(dir(), { "a.txt": `${lines.join("\n")}\n`, "b.txt": "match b\n" });
		const result = await grep({ pattern: "match", context: 1 });
		expect(textOf(result)).toBe(
			[
				"a.txt-4- line 4",
				"a.txt:5: match 5",
				"a.txt-6- line 6",
				"a.txt:7: match 7",
				"a.txt-8- line 8",
				"--",
				"a.txt-15- line 15",
				"a.txt:16: match 16",
				"a.txt-17- line 17",
				"--",
				"b.txt:1: match b",
			].join("\n"),
		);
	});

	it("gives no notice when exactly limit matches exist", async () => {
		await writeTree(dir(), { "a.txt": "hit\nhit\nhit\n" });
		const result = await grep({ pattern: "hit", limit: 3 });
		expect(textOf(result)).toBe("a.txt:1: hit\na.txt:2: hit\na.txt:3: hit");
		expect(result.details?.matchLimitReached).toBeUndefined();
	});

	it("says so when matches were left out at the limit, without stray context", async () => {
		await writeTree(dir(), { "a.txt": "hit 1\nx\nhit 2\ny\nz\nw\nv\nhit 3\nhit 4\n" });
		const result = await grep({ pattern: "hit", limit: 2, context: 1 });
		const text = textOf(result);
		expect(text).toBe(
			[
				"a.txt:1: hit 1\na.txt-2- x\na.txt:3: hit 2\na.txt-4- y",
				"",
				"[Cut by the limit of 2 matches: 2 matches shown of 4, from 1 file of 1. Matches not shown, file by file (a file with none shown gives its first):]",
				"a.txt: 2 more matches after line 3, the last at line 9",
				'[For the rest: grep one file or folder by path (e.g. path: "a.txt"); narrow with include, exclude or a more specific pattern; raise limit (e.g. limit: 4).]',
			].join("\n"),
		);
		expect(result.details).toMatchObject({ matchCount: 2, matchLimitReached: 2 });
	});

	it("stops at the limit without reading to the end of the input", async () => {
		const fifo = join(dir(), "stream.txt");
		makeFifo(fifo);
		const writer = open(fifo, "w");
		const pending = grep({ pattern: "hit", path: "stream.txt", limit: 2 });
		const handle = await writer;
		try {
			// More than a read buffer, so ripgrep searches what came; the pipe stays open, so only
			// stopping at the third match can end the search.
			void handle.write(`hit 1\nhit 2\nhit 3\n${PADDING}`).catch(() => {});
			const result = await pending;
			expect(textOf(result)).toContain(
				"[Cut by the limit of 2 matches: 2 matches shown; the file has more (a search of one file stops at the limit).",
			);
			expect(textOf(result)).toContain("[For the rest: read stream.txt with offset: 3,");
			await sleep(100);
			expect(await processesIn(dir())).toEqual([]);
		} finally {
			await handle.close();
		}
	});

	it("treats a pattern that starts with - as a pattern", async () => {
		await writeTree(dir(), { "a.txt": "--verbose flag\nplain\n", "b.txt": "-e\n" });
		expect(textOf(await grep({ pattern: "--verbose" }))).toBe("a.txt:1: --verbose flag");
		expect(textOf(await grep({ pattern: "-e" }))).toBe("b.txt:1: -e");
	});

	it("explains an invalid regex instead of failing with a stack trace", async () => {
		await writeTree(dir(), { "a.txt": "text\n" });
		const error = await grep({ pattern: "foo(bar" }).catch((caught: unknown) => caught as Error);
		expect(error).toBeInstanceOf(Error);
		const message = (error as Error).message;
		expect(message).toMatch(backend === "ripgrep" ? /regex parse error[\s\S]*unclosed group/ : /Unterminated group/);
		expect(message).toContain("literal: true");
		expect(message).not.toMatch(/\n\s+at /);
	});

	it("reports no match as a plain result, not an error", async () => {
		await writeTree(dir(), { "a.txt": "text\n" });
		const result = await grep({ pattern: "absent" });
		expect(textOf(result)).toBe("No matches found");
		expect(result.details).toMatchObject({ matchCount: 0, fileCount: 0 });
	});

	it("matches literally and case-insensitively on request", async () => {
		await writeTree(dir(), { "a.txt": "call foo(1)\nFOO(2)\nfoo.bar\nfooXbar\n" });
		expect(textOf(await grep({ pattern: "foo(", literal: true }))).toBe("a.txt:1: call foo(1)");
		expect(textOf(await grep({ pattern: "foo(", literal: true, case_sensitive: false }))).toBe(
			"a.txt:1: call foo(1)\na.txt:2: FOO(2)",
		);
		expect(textOf(await grep({ pattern: "foo.bar", literal: true }))).toBe("a.txt:3: foo.bar");
		expect(textOf(await grep({ pattern: "foo.bar" }))).toBe("a.txt:3: foo.bar\na.txt:4: fooXbar");
	});

	it("reads CRLF files like LF files: no \r in the text, $ matches at the line end", async () => {
		await writeTree(dir(), { "win.txt": "first line\r\nend here\r\nlast\r\n" });
		expect(textOf(await grep({ pattern: "here$" }))).toBe("win.txt:2: end here");
		expect(textOf(await grep({ pattern: "^last$", context: 1 }))).toBe("win.txt-2- end here\nwin.txt:3: last");
	});

	it("skips binary files in a folder", async () => {
		await writeTree(dir(), { "image.bin": "hit\u0000\u0001\u0002 hit\n", "text.txt": "hit\n" });
		expect(textOf(await grep({ pattern: "hit" }))).toBe("text.txt:1: hit");
	});

	it("narrows files with include and exclude globs", async () => {
		await writeTree(dir(), {
			"src/a.ts": "hit\n",
			"src/a.test.ts": "hit\n",
			"src/b.js": "hit\n",
			"lib/c.ts": "hit\n",
		});
		expect(textOf(await grep({ pattern: "hit", include: "*.ts" }))).toBe(
			"lib/c.ts:1: hit\nsrc/a.test.ts:1: hit\nsrc/a.ts:1: hit",
		);
		expect(textOf(await grep({ pattern: "hit", include: "src/**", exclude: "*.test.ts" }))).toBe(
			"src/a.ts:1: hit\nsrc/b.js:1: hit",
		);
		expect(textOf(await grep({ pattern: "hit", exclude: "src" }))).toBe("lib/c.ts:1: hit");
		expect(textOf(await grep({ pattern: "hit", exclude: "./lib" }))).toBe(
			"src/a.test.ts:1: hit\nsrc/a.ts:1: hit\nsrc/b.js:1: hit",
		);
	});

	it("never brings back ignored files through include", async () => {
		await writeTree(dir(), {
			".gitignore": "*.log\nvendor/\n",
			"debug.log": "hit\n",
			"vendor/lib.js": "hit\n",
			"src/app.js": "hit\n",
		});
		expect(textOf(await grep({ pattern: "hit", include: "*.log" }))).toBe("No matches found");
		expect(textOf(await grep({ pattern: "hit", include: "*" }))).toBe("src/app.js:1: hit");
		expect(textOf(await grep({ pattern: "hit", include: "vendor/**" }))).toBe("No matches found");
	});

	it("honours nested .gitignore, .ignore and .rgignore outside a git repository", async () => {
		await writeTree(dir(), {
			".gitignore": "*.log\nbuild/\n",
			"keep.txt": "hit\n",
			"debug.log": "hit\n",
			"build/out.txt": "hit\n",
			"pkg/.gitignore": "secret.txt\n!important.log\n",
			"pkg/secret.txt": "hit\n",
			"pkg/important.log": "hit\n",
			"other/secret.txt": "hit\n",
			".ignore": "generated/\n",
			"generated/x.txt": "hit\n",
			"tools/.rgignore": "local.txt\n",
			"tools/local.txt": "hit\n",
			"tools/shared.txt": "hit\n",
		});
		expect(textOf(await grep({ pattern: "hit" }))).toBe(
			["keep.txt:1: hit", "other/secret.txt:1: hit", "pkg/important.log:1: hit", "tools/shared.txt:1: hit"].join("\n"),
		);
	});

	it("honours .gitignore and the repository's info/exclude inside a git repository", async () => {
		execFileSync("git", ["init", "-q"], { cwd: dir() });
		await writeTree(dir(), {
			".gitignore": "*.log\n",
			".git/info/exclude": "local-notes.txt\n",
			"local-notes.txt": "hit\n",
			"app.log": "hit\n",
			"src/.gitignore": "gen/\n",
			"src/gen/out.ts": "hit\n",
			"src/main.ts": "hit\n",
		});
		expect(textOf(await grep({ pattern: "hit" }))).toBe("src/main.ts:1: hit");
	});

	it("applies the ignore files of folders above the searched path", async () => {
		await writeTree(dir(), {
			".gitignore": "*.log\n",
			"pkg/.ignore": "drafts/\n",
			"pkg/src/app.log": "hit\n",
			"pkg/src/drafts/a.txt": "hit\n",
			"pkg/src/app.ts": "hit\n",
		});
		expect(textOf(await grep({ pattern: "hit", path: "pkg/src" }))).toBe("app.ts:1: hit");
	});

	it("finds files when asked to search inside an ignored folder", async () => {
		await writeTree(dir(), { ".gitignore": "vendor/\n", "vendor/lib/x.js": "hit\n" });
		expect(textOf(await grep({ pattern: "hit" }))).toBe("No matches found");
		expect(textOf(await grep({ pattern: "hit", path: "vendor" }))).toBe("lib/x.js:1: hit");
	});

	it("searches hidden files, never .git/, and skips node_modules when ignored", async () => {
		await writeTree(dir(), {
			".env": "needle=1\n",
			".config/settings.json": '{"needle": true}\n',
			".git/config": "needle in git\n",
			".git/objects/ab/cdef": "needle\n",
			".gitignore": "node_modules\n",
			"node_modules/dep/index.js": "needle\n",
			"src/sub/.git/HEAD": "needle\n",
		});
		expect(textOf(await grep({ pattern: "needle" }))).toBe(
			'.config/settings.json:1: {"needle": true}\n.env:1: needle=1',
		);
	});

	it("searches ignored files when ignore files are turned off, but still never .git/", async () => {
		await writeTree(dir(), {
			".gitignore": "*.log\n",
			"debug.log": "hit\n",
			".git/HEAD": "hit\n",
		});
		const result = await grep({ pattern: "hit" }, { respectIgnoreFiles: false });
		expect(textOf(result)).toBe("debug.log:1: hit");
	});

	it("cuts long lines around the match, keeping the match visible", async () => {
		const long = `${"a".repeat(3000)}NEEDLE${"b".repeat(3000)}`;
		await writeTree(dir(), { "min.js": `${long}\n`, "short.txt": "NEEDLE short\n" });
		const result = await grep({ pattern: "NEEDLE" });
		const [first, second, , notice] = textOf(result).split("\n");
		expect(first).toMatch(/^min\.js:1: \[… \d+ chars\] a+NEEDLEb+ \[\d+ chars …\]$/);
		expect((first ?? "").length).toBeLessThan(600);
		expect(second).toBe("short.txt:1: NEEDLE short");
		expect(notice).toContain("Lines longer than 500 characters were cut");
		expect(result.details?.linesTruncated).toBe(true);
	});

	it("keeps the whole result within the output budget, with a notice", async () => {
		const lines = Array.from(
			{ length: 400 },
			(_, index) => `hit ${index % 7 ? "plain" : "odd"} ${index} ${"x".repeat(40)}`,
		);
		await writeTree(dir(), { "a.txt": `${lines.join("\n")}\n` });
		const result = await grep({ pattern: "hit", limit: 1000 }, { maxBytes: 2000 });
		const text = textOf(result);
		const [body, notice] = text.split("\n\n");
		expect(Buffer.byteLength(text)).toBeLessThanOrEqual(2000);
		expect(body).toMatch(/^a\.txt:1: hit odd 0 x+\na\.txt:2: hit plain 1 x+\n/);
		expect(notice).toMatch(
			/^\[Cut by the output budget of 2\.0 KB or 2000 lines: \d+ matches shown of 400, from 1 file of 1\./,
		);
		expect(notice).toMatch(/\na\.txt: \d+ more matches after line \d+, the last at line 400\n/);
		expect(result.details).toMatchObject({ outputTruncated: true, matchCount: 400 });
	});

	it("reports a missing path as an error the model can act on", async () => {
		const error = await grep({ pattern: "x", path: "nope" }).catch((caught: unknown) => caught as Error);
		expect((error as Error).message).toBe("Path not found: nope. Check the spelling, or search from a parent folder.");
	});

	it("stops at once when aborted", async () => {
		const fifo = join(dir(), "stream.txt");
		makeFifo(fifo);
		const controller = new AbortController();
		const tool = createGrepTool(dir(), { backend });
		const started = Date.now();
		const pending = tool.execute("call", { pattern: "x", path: "stream.txt" }, controller.signal);
		setTimeout(() => controller.abort(), 100);
		await expect(pending).rejects.toMatchObject({ name: "AbortError" });
		expect(Date.now() - started).toBeLessThan(2000);
		await sleep(100);
		expect(await processesIn(dir())).toEqual([]);
		// Unblock a reader still waiting to open the pipe (the walker's thread), so nothing lingers.
		await releaseFifo(fifo);
	});

	it("returns partial results with a notice at the timeout", async () => {
		const fifo = join(dir(), "stream.txt");
		makeFifo(fifo);
		const writer = open(fifo, "w");
		const started = Date.now();
		const pending = grep({ pattern: "hit", path: "stream.txt" }, { timeoutMs: 500 });
		const handle = await writer;
		try {
			void handle.write(`hit 1\n${PADDING}`).catch(() => {});
			const result = await pending;
			expect(Date.now() - started).toBeLessThan(3000);
			expect(textOf(result)).toBe(
				"stream.txt:1: hit 1\n\n[The search timed out after 500 ms; the results are partial. Search a smaller path or use include to narrow the files; if the pattern has nested quantifiers or large counted repetitions, simplify it.]",
			);
			expect(result.details).toMatchObject({ timedOut: true, matchCount: 1 });
		} finally {
			await handle.close();
		}
	});
});

describe("grep definition", () => {
	it("is read-only, parallel, and built from one schema", () => {
		const definition = createGrepToolDefinition("/");
		const tool = createGrepTool("/");
		expect(tool.parameters).toBe(definition.parameters);
		expect(tool.executionMode).toBe("parallel");
		expect(definition.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
		expect(Object.keys(definition.parameters.properties)).toEqual([
			"pattern",
			"path",
			"include",
			"exclude",
			"case_sensitive",
			"literal",
			"context",
			"limit",
		]);
	});
});
