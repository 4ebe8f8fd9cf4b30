import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { validateToolArguments } from "../../../src/engine/validation/validate.js";
import { createFindTool } from "../../../src/tools/find.js";
import { createGrepTool } from "../../../src/tools/grep.js";
import { useTempDir } from "../../helpers/temp-dir.js";
import { backends, textOf, writeTree } from "./fixtures.js";

/** Arguments as a model sends them: repaired, then validated, as the engine does before execute. */
function callAsModel(tool: ReturnType<typeof createGrepTool> | ReturnType<typeof createFindTool>, raw: unknown) {
	const args = validateToolArguments(tool, tool.prepareArguments ? tool.prepareArguments(raw) : raw);
	return tool.execute("call", args as never, undefined);
}

describe.each(backends)("grep and find with inputs models send ($name)", ({ backend }) => {
	const dir = useTempDir();
	const tree = {
		"src/a.ts": "needle ts\n",
		"src/b.js": "needle js\n",
		"src/c.md": "needle md\n",
		"docs/d.md": "needle doc\n",
		"e.ts": "needle top\n",
	};

	it("grep takes include as an array of globs", async () => {
		await writeTree(dir(), tree);
		const result = await callAsModel(createGrepTool(dir(), { backend }), {
			pattern: "needle",
			include: ["*.ts", "*.js"],
		});
		expect(textOf(result)).toBe("e.ts:1: needle top\nsrc/a.ts:1: needle ts\nsrc/b.js:1: needle js");
	});

	it("grep takes include as a comma list, and a name glob next to a path glob keeps matching at any depth", async () => {
		await writeTree(dir(), tree);
		const grep = createGrepTool(dir(), { backend });
		expect(textOf(await callAsModel(grep, { pattern: "needle", include: "*.ts, *.js" }))).toBe(
			"e.ts:1: needle top\nsrc/a.ts:1: needle ts\nsrc/b.js:1: needle js",
		);
		expect(textOf(await callAsModel(grep, { pattern: "needle", include: ["*.ts", "docs/*.{md,txt}"] }))).toBe(
			"docs/d.md:1: needle doc\ne.ts:1: needle top\nsrc/a.ts:1: needle ts",
		);
	});

	it("grep takes exclude as a list", async () => {
		await writeTree(dir(), tree);
		const result = await callAsModel(createGrepTool(dir(), { backend }), { pattern: "needle", exclude: "*.md,*.js" });
		expect(textOf(result)).toBe("e.ts:1: needle top\nsrc/a.ts:1: needle ts");
	});

	it("find takes a list of patterns", async () => {
		await writeTree(dir(), tree);
		const find = createFindTool(dir(), { backend });
		expect(textOf(await callAsModel(find, { pattern: "*.ts,*.js" }))).toBe("e.ts\nsrc/a.ts\nsrc/b.js");
		expect(textOf(await callAsModel(find, { pattern: ["docs/*.md", "*.js"] }))).toBe("docs/d.md\nsrc/b.js");
	});

	it("grep supports look-ahead and back-references", async () => {
		await writeTree(dir(), { "a.txt": "fooBar\nfooBaz\nabab\nabba\n" });
		const grep = createGrepTool(dir(), { backend });
		expect(textOf(await callAsModel(grep, { pattern: "foo(?=Bar)" }))).toBe("a.txt:1: fooBar");
		expect(textOf(await callAsModel(grep, { pattern: "(ab)\\1" }))).toBe("a.txt:3: abab");
	});
});

describe.each(backends)("grep on a binary file named as the path ($name)", ({ backend }) => {
	const dir = useTempDir();
	const binary = (text: string) => Buffer.concat([Buffer.from("header\n"), Buffer.alloc(16), Buffer.from(text)]);

	it("says that the binary file matches instead of 'No matches found'", async () => {
		await writeFile(join(dir(), "blob.bin"), binary("\nsecret needle\n"));
		await writeFile(join(dir(), "other.bin"), binary("\nnothing here\n"));
		const grep = createGrepTool(dir(), { backend });
		const found = await callAsModel(grep, { pattern: "needle", path: "blob.bin" });
		expect(textOf(found)).toMatch(/^blob\.bin: binary file matches; grep does not print binary content/);
		expect(found.details).toMatchObject({ matchCount: 0, binaryFiles: ["blob.bin"] });
		const missing = await callAsModel(grep, { pattern: "needle", path: "other.bin" });
		expect(textOf(missing)).toBe("No matches found");
		// In a folder, binary files are skipped (as ripgrep does), and the empty result says so.
		expect(textOf(await callAsModel(grep, { pattern: "needle" }))).toMatch(
			/^No matches found\n\n\[Skipped: 2 binary files \(blob\.bin, other\.bin\)\./,
		);
	});
});

describe.each(backends)("grep with more context than the output holds ($name)", ({ backend }) => {
	const dir = useTempDir();

	it("lowers the context so that the match stays in the output, and says so", async () => {
		const lines = Array.from({ length: 400 }, (_, index) => `filler line ${index + 1}`);
		lines[199] = "the needle";
		await writeFile(join(dir(), "long.txt"), `${lines.join("\n")}\n`);
		const grep = createGrepTool(dir(), { backend, maxLines: 41 });
		const result = await callAsModel(grep, { pattern: "needle", context: 5000 });
		const text = textOf(result);
		expect(text).toContain("long.txt:200: the needle");
		expect(text.split("\n\n")[0]?.split("\n")).toHaveLength(41);
		expect(text).toContain("long.txt-180- filler line 180");
		expect(text).toContain("[Showing 20 lines of context instead of 5000, so that the matches fit the output.");
		expect(result.details?.outputTruncated).toBeUndefined();
	});
});

describe.each(backends)("a glob in path, a bare word as find pattern ($name)", ({ backend }) => {
	const dir = useTempDir();

	it("grep reads a glob in path as the folder plus include", async () => {
		await writeTree(dir(), { "src/a.ts": "needle\n", "src/deep/b.ts": "needle\n", "src/c.js": "needle\n" });
		const grep = createGrepTool(dir(), { backend });
		const direct = textOf(await callAsModel(grep, { pattern: "needle", path: "src/*.ts" }));
		expect(direct).toBe('a.ts:1: needle\n\n[Read path "src/*.ts" as path "src" with include "/*.ts".]');
		const deep = textOf(await callAsModel(grep, { pattern: "needle", path: "src/**/*.ts" }));
		expect(deep.split("\n\n")[0]).toBe("a.ts:1: needle\ndeep/b.ts:1: needle");
		await expect(callAsModel(grep, { pattern: "needle", path: "src/*.ts", include: "*.ts" })).rejects.toThrow(
			'path must be a folder or file, not a glob: src/*.ts. Pass path: "src"',
		);
	});

	it("a folder whose name holds glob characters is still a folder", async () => {
		await writeTree(dir(), { "app/[id]/page.ts": "needle\n" });
		const result = await callAsModel(createGrepTool(dir(), { backend }), { pattern: "needle", path: "app/[id]" });
		expect(textOf(result)).toBe("page.ts:1: needle");
		expect(textOf(await callAsModel(createFindTool(dir(), { backend }), { pattern: "*.ts", path: "app/[id]" }))).toBe(
			"page.ts",
		);
	});

	it("find says how to match part of a name when a bare word finds nothing", async () => {
		await writeTree(dir(), { "src/Button.tsx": "x\n" });
		const find = createFindTool(dir(), { backend });
		expect(textOf(await callAsModel(find, { pattern: "Button" }))).toBe(
			"No files found (the pattern matches whole file names: use '*Button*' for names that contain it, or 'Button/**' for the files in a folder of that name).",
		);
		expect(textOf(await callAsModel(find, { pattern: "*Button*" }))).toBe("src/Button.tsx");
		await expect(callAsModel(find, { pattern: "*.tsx", path: "src/**" })).rejects.toThrow(
			'path must be a folder, not a glob: src/**. Pass path: "src" and put the glob into pattern.',
		);
	});
});

describe.each(backends)("globs written from the working directory ($name)", ({ backend }) => {
	const dir = useTempDir();

	it("an include or find pattern that repeats the searched folder or its absolute path still matches", async () => {
		await writeTree(dir(), { "src/a.ts": "needle\n", "src/x/b.ts": "needle\n", "src/c.md": "needle\n" });
		const grep = createGrepTool(dir(), { backend });
		expect(textOf(await callAsModel(grep, { pattern: "needle", path: "src", include: "src/**/*.ts" }))).toBe(
			"a.ts:1: needle\nx/b.ts:1: needle",
		);
		expect(textOf(await callAsModel(grep, { pattern: "needle", path: "src", exclude: "./src/x/**" }))).toBe(
			"a.ts:1: needle\nc.md:1: needle",
		);
		const find = createFindTool(dir(), { backend });
		expect(textOf(await callAsModel(find, { pattern: join(dir(), "src", "*.ts") }))).toBe("src/a.ts");
		expect(textOf(await callAsModel(find, { pattern: "src/x/*.ts", path: "src" }))).toBe("x/b.ts");
	});
});
