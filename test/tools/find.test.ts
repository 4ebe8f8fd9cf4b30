import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createFindTool, createFindToolDefinition, type FindToolOptions } from "../../src/tools/find.js";
import type { SearchOperations } from "../../src/workspace/search/types.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { backends, textOf, writeTree } from "./search/fixtures.js";

const project = {
	"package.json": "{}",
	"src/index.ts": "",
	"src/tools/grep.ts": "",
	"src/tools/grep.test.ts": "",
	"test/tools/find.test.ts": "",
	"README.md": "",
	".github/workflows/ci.yml": "",
	".github/workflows/release.yml": "",
	".github/dependabot.yml": "",
	".env.example": "",
	".git/config": "",
	".git/hooks/pre-commit.ts": "",
	".gitignore": "dist/\n*.log\nnode_modules\n",
	"dist/index.ts": "",
	"debug.log": "",
	"node_modules/dep/index.ts": "",
	"src/generated/.gitignore": "*.ts\n!keep.ts\n",
	"src/generated/skip.ts": "",
	"src/generated/keep.ts": "",
};

describe.each(backends)("find ($name)", ({ backend }) => {
	const dir = useTempDir();
	const find = (args: Parameters<ReturnType<typeof createFindTool>["execute"]>[1], options: FindToolOptions = {}) =>
		createFindTool(dir(), { backend, ...options }).execute("call", args, undefined);

	it.each([
		[".gitignore", "*.gen.ts\n"],
		[".ignore", "*.gen.ts\n"],
		[".rgignore", "*.gen.ts\n"],
		[".git/info/exclude", "*.gen.ts\n"],
	])("applies %s in a folder above the searched path", async (file, rules) => {
		await writeTree(dir(), { [file]: rules, "pkg/src/a.ts": "", "pkg/src/b.gen.ts": "", "pkg/c.gen.ts": "" });
		expect(textOf(await find({ pattern: "*.ts", path: "pkg/src" }))).toBe("a.ts");
		expect(textOf(await find({ pattern: "*.ts", path: "pkg" }))).toBe("src/a.ts");
	});

	it("matches a pattern without / against the name at any depth, sorted by path", async () => {
		await writeTree(dir(), project);
		const result = await find({ pattern: "*.ts" });
		expect(textOf(result)).toBe(
			[
				"src/generated/keep.ts",
				"src/index.ts",
				"src/tools/grep.test.ts",
				"src/tools/grep.ts",
				"test/tools/find.test.ts",
			].join("\n"),
		);
		expect(result.details).toMatchObject({ backend, fileCount: 5 });
	});

	it("matches a pattern with / against the relative path", async () => {
		await writeTree(dir(), project);
		expect(textOf(await find({ pattern: "src/**/*.test.ts" }))).toBe("src/tools/grep.test.ts");
		expect(textOf(await find({ pattern: "**/*.test.ts" }))).toBe("src/tools/grep.test.ts\ntest/tools/find.test.ts");
		expect(textOf(await find({ pattern: "tools/*.ts" }))).toBe("No files found");
		expect(textOf(await find({ pattern: "./src/*.ts" }))).toBe("src/index.ts");
		expect(textOf(await find({ pattern: "./index.ts" }))).toBe("No files found");
		expect(textOf(await find({ pattern: "/package.json" }))).toBe("package.json");
		expect(textOf(await find({ pattern: "src/**/*.{ts,md}", path: "." }))).toBe(
			"src/generated/keep.ts\nsrc/index.ts\nsrc/tools/grep.test.ts\nsrc/tools/grep.ts",
		);
	});

	it("finds dotfiles, by an explicit pattern and by a name pattern", async () => {
		await writeTree(dir(), project);
		expect(textOf(await find({ pattern: ".github/workflows/*.yml" }))).toBe(
			".github/workflows/ci.yml\n.github/workflows/release.yml",
		);
		expect(textOf(await find({ pattern: "*.yml" }))).toBe(
			".github/dependabot.yml\n.github/workflows/ci.yml\n.github/workflows/release.yml",
		);
		expect(textOf(await find({ pattern: ".env*" }))).toBe(".env.example");
	});

	it("never lists .git/ and honours ignore files outside a git repository", async () => {
		await writeTree(dir(), project);
		const text = textOf(await find({ pattern: "*" }));
		expect(text.split("\n")).toEqual([
			".env.example",
			".github/dependabot.yml",
			".github/workflows/ci.yml",
			".github/workflows/release.yml",
			".gitignore",
			"README.md",
			"package.json",
			"src/generated/.gitignore",
			"src/generated/keep.ts",
			"src/index.ts",
			"src/tools/grep.test.ts",
			"src/tools/grep.ts",
			"test/tools/find.test.ts",
		]);
	});

	it("lists ignored files when ignore files are turned off", async () => {
		await writeTree(dir(), project);
		const text = textOf(await find({ pattern: "*.ts" }, { respectIgnoreFiles: false }));
		expect(text).toContain("dist/index.ts");
		expect(text).toContain("node_modules/dep/index.ts");
		expect(text).toContain("src/generated/skip.ts");
		expect(text).not.toContain(".git/");
	});

	it("searches below the given path, with paths relative to it", async () => {
		await writeTree(dir(), project);
		expect(textOf(await find({ pattern: "*.ts", path: "src/tools" }))).toBe("grep.test.ts\ngrep.ts");
	});

	it("gives no notice at exactly limit files, and one when files were left out", async () => {
		await writeTree(dir(), { "a.txt": "", "b.txt": "", "c.txt": "" });
		const exact = await find({ pattern: "*.txt", limit: 3 });
		expect(textOf(exact)).toBe("a.txt\nb.txt\nc.txt");
		expect(exact.details?.resultLimitReached).toBeUndefined();
		const cut = await find({ pattern: "*.txt", limit: 2 });
		const [body, notice] = textOf(cut).split("\n\n");
		expect(body).toBe("a.txt\nb.txt");
		expect(notice).toBe(
			"[Showing the first 2 matching files, in path order; more match from c.txt on (not counted: the listing stopped at the limit). Use a more specific pattern or path, or raise limit (e.g. limit: 4).]",
		);
		expect(cut.details).toMatchObject({ fileCount: 2, resultLimitReached: 2, firstNotShown: "c.txt" });
	});

	it("cut at the limit, lists exactly the first files of the whole sorted listing", async () => {
		// Names whose order trips a plain string sort of full paths: a folder sorts at its name,
		// so `a/` comes before `a-b` and `a.ts`; upper case, digits and dotfiles among them.
		await writeTree(dir(), {
			"a-b.ts": "",
			"a.ts": "",
			"a/z.ts": "",
			"a/b/c.ts": "",
			"a/b.ts": "",
			"B.ts": "",
			".hidden/x.ts": "",
			".x.ts": "",
			"10/y.ts": "",
			"9.ts": "",
			"é/n.ts": "",
		});
		const whole = textOf(await find({ pattern: "*.ts", limit: 100 })).split("\n");
		expect(whole).toHaveLength(11);
		for (let limit = 1; limit < whole.length; limit++) {
			const result = await find({ pattern: "*.ts", limit });
			const [body, notice] = textOf(result).split("\n\n");
			expect(body).toBe(whole.slice(0, limit).join("\n"));
			expect(notice).toContain(`more match from ${whole[limit]} on`);
			expect(result.details).toMatchObject({ fileCount: limit, resultLimitReached: limit });
		}
	});

	it("shows the same first files in path order on every call, whatever order the walk finds them in", async () => {
		const files: Record<string, string> = {};
		for (let folder = 0; folder < 20; folder++) {
			for (let file = 0; file < 20; file++)
				files[`d${String(folder).padStart(2, "0")}/f${String(file).padStart(2, "0")}.txt`] = "";
		}
		await writeTree(dir(), files);
		const expected = Object.keys(files).sort().slice(0, 25).join("\n");
		for (let run = 0; run < 5; run++) {
			const result = await find({ pattern: "*.txt", limit: 25 });
			expect(textOf(result).split("\n\n")[0]).toBe(expected);
			expect(textOf(result)).toContain("first 25 matching files, in path order; more match from d01/f05.txt on");
		}
	});

	it("keeps the output within the budget, with a notice", async () => {
		const files: Record<string, string> = {};
		for (let index = 0; index < 50; index++) files[`dir/file-${String(index).padStart(2, "0")}.txt`] = "";
		await writeTree(dir(), files);
		const result = await find({ pattern: "*.txt" }, { maxLines: 10 });
		const [body, notice] = textOf(result).split("\n\n");
		expect(body?.split("\n")).toHaveLength(10);
		expect(notice).toMatch(/^\[Output cut to 10 of 50 paths/);
		expect(result.details).toMatchObject({ outputTruncated: true, fileCount: 50 });
	});

	it("says No files found when nothing matches", async () => {
		await writeTree(dir(), { "a.txt": "" });
		const result = await find({ pattern: "*.rs" });
		expect(textOf(result)).toBe("No files found");
		expect(result.details).toMatchObject({ fileCount: 0 });
	});

	it("rejects a file or a missing path with a message the model can act on", async () => {
		await writeTree(dir(), { "a.txt": "" });
		await expect(find({ pattern: "*", path: "a.txt" })).rejects.toThrow(
			"a.txt is a file, not a folder. Pass the folder that holds it as path.",
		);
		await expect(find({ pattern: "*", path: join(dir(), "missing") })).rejects.toThrow(/^Path not found: /);
	});

	it("stops at once when aborted", async () => {
		await writeTree(dir(), { "a.txt": "" });
		const controller = new AbortController();
		controller.abort();
		const started = Date.now();
		await expect(
			createFindTool(dir(), { backend }).execute("call", { pattern: "*" }, controller.signal),
		).rejects.toMatchObject({ name: "AbortError" });
		expect(Date.now() - started).toBeLessThan(2000);
	});
});

describe("find definition", () => {
	it("is read-only, parallel, and built from one schema", () => {
		const definition = createFindToolDefinition("/");
		const tool = createFindTool("/");
		expect(tool.parameters).toBe(definition.parameters);
		expect(tool.executionMode).toBe("parallel");
		expect(definition.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
		expect(Object.keys(definition.parameters.properties)).toEqual(["pattern", "path", "limit", "case_sensitive"]);
	});
});

describe("find with a limit, by the backend's order", () => {
	/** A backend that hands out `batches` one by one and records how many were taken. */
	function listing(batches: string[][], pathOrdered: boolean) {
		const taken = { batches: 0 };
		const requests: (boolean | undefined)[] = [];
		const operations: SearchOperations = {
			stat: async () => ({ isDirectory: true }),
			grep: async () => {
				throw new Error("not used");
			},
			listFiles: async (request) => {
				requests.push(request.pathOrder);
				return {
					backend: "walker",
					pathOrdered,
					items: (async function* () {
						for (const batch of batches) {
							taken.batches++;
							yield batch;
						}
					})(),
				};
			},
		};
		return { operations, taken, requests };
	}

	it("stops a path-ordered listing at the first path past the limit", async () => {
		const { operations, taken, requests } = listing([["a.ts", "b.ts"], ["c.ts"], ["d.ts"], ["e.ts"]], true);
		const result = await createFindTool("/workspace", { operations }).execute(
			"call",
			{ pattern: "*.ts", limit: 2 },
			undefined,
		);
		expect(requests).toEqual([true]);
		expect(taken.batches).toBe(2);
		expect(textOf(result)).toBe(
			"a.ts\nb.ts\n\n[Showing the first 2 matching files, in path order; more match from c.ts on (not counted: the listing stopped at the limit). Use a more specific pattern or path, or raise limit (e.g. limit: 4).]",
		);
	});

	it("lists an unordered backend to its end and shows the first files in path order, with the total", async () => {
		const { operations, taken } = listing([["e.ts", "b.ts"], ["d.ts"], ["a.ts"], ["c.ts"]], false);
		const result = await createFindTool("/workspace", { operations }).execute(
			"call",
			{ pattern: "*.ts", limit: 2 },
			undefined,
		);
		expect(taken.batches).toBe(4);
		expect(textOf(result)).toBe(
			"a.ts\nb.ts\n\n[Showing the first 2 of 5 matching files, in path order. Use a more specific pattern or path, or raise limit (e.g. limit: 4).]",
		);
		expect(result.details?.firstNotShown).toBeUndefined();
	});

	it("lists in any order when the limit is large (a parallel walk of the whole tree is then faster), and counts them all", async () => {
		const names = Array.from({ length: 10_002 }, (_, index) => `f${String(index).padStart(5, "0")}.ts`);
		const { operations, taken, requests } = listing([names.slice(0, 5000), names.slice(5000)], true);
		const result = await createFindTool("/workspace", { operations }).execute(
			"call",
			{ pattern: "*.ts", limit: 10_001 },
			undefined,
		);
		expect(requests).toEqual([false]);
		expect(taken.batches).toBe(2);
		expect(textOf(result)).toMatch(/\[Showing the first 10001 of 10002 matching files, in path order\./);
	});
});
