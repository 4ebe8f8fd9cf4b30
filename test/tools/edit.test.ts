import { execFileSync } from "node:child_process";
import { chmod, lstat, mkdir, readdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { executeToolCalls } from "../../src/engine/execute-tool-calls.js";
import type { ToolCall } from "../../src/engine/types.js";
import { createEditTool, createEditToolDefinition, type EditToolInput } from "../../src/tools/edit.js";
import { useTempDir } from "../helpers/temp-dir.js";

const tempDir = useTempDir();

async function edit(input: EditToolInput, cwd = tempDir()) {
	const tool = createEditTool(cwd);
	return tool.execute("call", input, undefined);
}

async function editError(input: EditToolInput): Promise<string> {
	try {
		await edit(input);
	} catch (error) {
		return (error as Error).message;
	}
	throw new Error("expected the edit to fail");
}

async function fileWith(content: string | Buffer, name = "file.txt"): Promise<string> {
	const path = join(tempDir(), name);
	await writeFile(path, content);
	return path;
}

describe("edit tool: definition", () => {
	it("is a sequential, destructive, closed-world tool with the documented schema", () => {
		const tool = createEditTool(tempDir());
		expect(tool.name).toBe("edit");
		expect(tool.executionMode).toBe("sequential");
		expect(tool.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, openWorldHint: false });
		expect(Object.keys(tool.parameters.properties)).toEqual([
			"path",
			"old_string",
			"new_string",
			"replace_all",
			"edits",
			"cell",
			"new_source",
			"allow_syntax_errors",
		]);
		expect(createEditToolDefinition(tempDir()).parameters).toBe(tool.parameters);
	});
});

describe("edit tool on real files", () => {
	it("edits, reports the diff and first changed line, and keeps everything else", async () => {
		const path = await fileWith("one\ntwo\nthree\n");
		const result = await edit({ path: "file.txt", old_string: "two", new_string: "TWO" });
		expect(await readFile(path, "utf8")).toBe("one\nTWO\nthree\n");
		expect(result.details).toMatchObject({
			path: "file.txt",
			firstChangedLine: 2,
			replacements: 1,
			strategy: "exact",
			bom: false,
		});
		const text = result.content[0]?.type === "text" ? result.content[0].text : "";
		expect(text).toContain("Edited file.txt: 1 replacement, first changed line 2.");
		expect(text).toContain("-two\n+TWO");
	});

	it("a replace_all over every line keeps the model's text and details within bounds", async () => {
		const lines = Array.from({ length: 100_000 }, (_, index) => `line ${index}`);
		const path = await fileWith(`${lines.join("\n")}\n`);
		const result = await edit({ path, old_string: "line", new_string: "LINE", replace_all: true });
		const text = result.content[0]?.type === "text" ? result.content[0].text : "";
		expect(Buffer.byteLength(text)).toBeLessThan(52 * 1024);
		expect(text).toMatch(/\n\[diff cut to \d+ of 200003 lines/);
		// Both sides of the change stay in view: the start of what went and of what came.
		expect(text).toContain("\n-line 0\n");
		expect(text).toContain("\n+LINE 0\n");
		expect(Buffer.byteLength(result.details?.diff ?? "")).toBeLessThanOrEqual(2 ** 20);
		expect(result.details?.diffTruncated).toBe(true);
		expect(result.details?.linesAdded).toBe(100_000);
		expect(await readFile(path, "utf8")).toBe(`${lines.map((line) => line.toUpperCase()).join("\n")}\n`);
	});

	it("CRLF file: LF old_string matches, inserted lines get CRLF", async () => {
		const path = await fileWith("a\r\nb\r\nc\r\n");
		const result = await edit({ path, old_string: "a\nb", new_string: "x\ny\nz" });
		expect(await readFile(path, "utf8")).toBe("x\r\ny\r\nz\r\nc\r\n");
		expect(result.details?.strategy).toBe("line-endings");
	});

	it("mixed endings: every untouched line keeps its own ending", async () => {
		const path = await fileWith("a\r\nb\nc\r\nd\n");
		await edit({ path, old_string: "b", new_string: "b1\nb2" });
		expect(await readFile(path, "utf8")).toBe("a\r\nb1\nb2\nc\r\nd\n");
		await edit({ path, old_string: "c", new_string: "c1\nc2" });
		expect(await readFile(path, "utf8")).toBe("a\r\nb1\nb2\nc1\r\nc2\r\nd\n");
	});

	it("keeps a BOM and never adds one", async () => {
		const withBom = await fileWith(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("x = 1\n")]), "bom.txt");
		const result = await edit({ path: withBom, old_string: "x = 1", new_string: "x = 2" });
		expect([...(await readFile(withBom)).subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
		expect((await readFile(withBom, "utf8")).slice(1)).toBe("x = 2\n");
		expect(result.details?.bom).toBe(true);
		const plain = await fileWith("x = 1\n", "plain.txt");
		await edit({ path: plain, old_string: "x = 1", new_string: "x = 2" });
		expect((await readFile(plain))[0]).toBe(0x78);
	});

	it("refuses a file that is not valid UTF-8 and leaves its bytes unchanged", async () => {
		// Not UTF-8, and not legacy text either (0x81 and 0x01 are no text bytes in Windows-1252).
		const bytes = Buffer.from([0x63, 0x61, 0x66, 0x81, 0x0a, 0x6e, 0x61, 0x01, 0x76, 0x65, 0x0a]);
		const path = await fileWith(bytes, "binary.txt");
		const message = await editError({ path, old_string: "caf", new_string: "CAF" });
		expect(message).toMatch(/not valid UTF-8.*unchanged/s);
		expect(Buffer.compare(await readFile(path), bytes)).toBe(0);
	});

	it("edits through a symlink: the target changes, the link stays a link, the mode is kept", async () => {
		const target = await fileWith("hello\n", "target.txt");
		await chmod(target, 0o751);
		const link = join(tempDir(), "link.txt");
		await symlink("target.txt", link);
		await edit({ path: "link.txt", old_string: "hello", new_string: "bye" });
		expect((await lstat(link)).isSymbolicLink()).toBe(true);
		expect(await readFile(target, "utf8")).toBe("bye\n");
		expect((await stat(target)).mode & 0o777).toBe(0o751);
		expect((await readdir(tempDir())).sort()).toEqual(["link.txt", "target.txt"]);
	});

	it("edits[] are all or nothing: one miss leaves the file untouched", async () => {
		const path = await fileWith("one\ntwo\nthree\n");
		const message = await editError({
			path,
			edits: [
				{ old_string: "one", new_string: "1" },
				{ old_string: "four", new_string: "4" },
			],
		});
		expect(message).toContain("edits[1]: old_string was not found");
		expect(await readFile(path, "utf8")).toBe("one\ntwo\nthree\n");
	});

	it("edits[] that overlap fail and leave the file untouched", async () => {
		const path = await fileWith("one two three\n");
		const message = await editError({
			path,
			edits: [
				{ old_string: "one two", new_string: "1 2" },
				{ old_string: "two three", new_string: "2 3" },
			],
		});
		expect(message).toMatch(/overlap/);
		expect(await readFile(path, "utf8")).toBe("one two three\n");
	});

	it("edits[] apply together, each matched against the original", async () => {
		const path = await fileWith("a\nb\nc\n");
		const result = await edit({
			path,
			edits: [
				{ old_string: "c", new_string: "a" },
				{ old_string: "a", new_string: "c" },
			],
		});
		expect(await readFile(path, "utf8")).toBe("c\nb\na\n");
		expect(result.details?.replacements).toBe(2);
	});

	it("ambiguous old_string lists lines; replace_all replaces them all", async () => {
		const path = await fileWith("x\nfoo()\ny\nfoo()\n");
		expect(await editError({ path, old_string: "foo()", new_string: "bar()" })).toMatch(
			/matches 2 places, at lines 2, 4:\n {2}line 2: foo\(\)\n {2}line 4: foo\(\)/,
		);
		const result = await edit({ path, old_string: "foo()", new_string: "bar()", replace_all: true });
		expect(await readFile(path, "utf8")).toBe("x\nbar()\ny\nbar()\n");
		expect(result.details?.replacements).toBe(2);
	});

	it("every ladder rung is reported in details", async () => {
		const cases: [string, string, string, string][] = [
			["exact", "a b\n", "a b", "c"],
			["line-endings", "a\r\nb\r\n", "a\nb", "c"],
			["trailing-whitespace", "a  \nb\n", "a\nb", "c"],
			["unicode", "it’s\n", "it's", "c"],
			["indentation", "  a\n    b\n", "a\n  b", "c\n  d"],
			["whitespace", "f( a, b );\n", "f(a, b);", "c"],
			["line-numbers", "a\nb\n", "     1\ta\n     2\tb", "c"],
			["escapes", "a\n\tb\n", "a\\n\\tb", "c"],
		];
		for (const [strategy, content, oldString, newString] of cases) {
			const path = await fileWith(content, `${strategy}.txt`);
			const result = await edit({ path, old_string: oldString, new_string: newString });
			expect(result.details?.strategy, strategy).toBe(strategy);
		}
		expect(await readFile(join(tempDir(), "indentation.txt"), "utf8")).toBe("  c\n    d\n");
	});

	it("missing file: says to use write; empty old_string says so", async () => {
		expect(await editError({ path: "nope.txt", old_string: "", new_string: "x" })).toMatch(
			/File not found: nope\.txt.*use write/s,
		);
		await fileWith("a\n");
		expect(await editError({ path: "file.txt", old_string: "", new_string: "x" })).toMatch(/old_string is empty/);
	});

	it("a directory, a no-op, and a missing new_string are clear errors", async () => {
		await mkdir(join(tempDir(), "folder"));
		expect(await editError({ path: "folder", old_string: "a", new_string: "b" })).toMatch(/is a directory/);
		await fileWith("a\n");
		expect(await editError({ path: "file.txt", old_string: "a", new_string: "a" })).toMatch(/identical/);
		expect(await editError({ path: "file.txt", old_string: "a" })).toMatch(/new_string is missing/);
		expect(await editError({ path: "file.txt" })).toMatch(/Nothing to edit/);
	});

	it("a FIFO is refused without reading from it (which would block)", async () => {
		const fifo = join(tempDir(), "pipe");
		execFileSync("mkfifo", [fifo]);
		expect(await editError({ path: "pipe", old_string: "a", new_string: "b" })).toMatch(/not a regular file/);
	});

	it("a read-only file is refused and left as it was", async () => {
		const path = await fileWith("a\n");
		await chmod(path, 0o444);
		expect(await editError({ path, old_string: "a", new_string: "b" })).toMatch(
			/Cannot write file.txt: permission denied.*not changed/s,
		);
		expect(await readFile(path, "utf8")).toBe("a\n");
	});

	it("an aborted call does not touch the file", async () => {
		const path = await fileWith("a\n");
		const controller = new AbortController();
		controller.abort();
		const tool = createEditTool(tempDir());
		await expect(tool.execute("call", { path, old_string: "a", new_string: "b" }, controller.signal)).rejects.toThrow(
			/abort/i,
		);
		expect(await readFile(path, "utf8")).toBe("a\n");
	});

	it("edits a 20 MB file quickly, also with a tolerant match, and misses fast", async () => {
		const lines = Array.from({ length: 400_000 }, (_, index) => `line ${index} ${"x".repeat(40)}`);
		const path = await fileWith(`${lines.join("\r\n")}\r\n`, "big.txt");
		let started = performance.now();
		const result = await edit({ path, old_string: "line 200000 ", new_string: "LINE 200000 " });
		expect(performance.now() - started).toBeLessThan(5000);
		expect(result.details?.firstChangedLine).toBe(200_001);
		started = performance.now();
		const tolerant = await edit({
			path,
			old_string: `line 300000 ${"x".repeat(40)}\nline 300001`,
			new_string: "joined",
		});
		expect(performance.now() - started).toBeLessThan(8000);
		expect(tolerant.details?.strategy).toBe("line-endings");
		started = performance.now();
		await expect(edit({ path, old_string: "absent\nnowhere", new_string: "x" })).rejects.toThrow(/not found/);
		expect(performance.now() - started).toBeLessThan(15_000);
		const expected = `${lines.join("\r\n")}\r\n`
			.replace("\r\nline 200000 ", "\r\nLINE 200000 ")
			.replace(`line 300000 ${"x".repeat(40)}\r\nline 300001`, "joined");
		expect((await readFile(path, "utf8")) === expected).toBe(true);
	}, 60_000);
});

describe("edit tool under concurrency", () => {
	const size = 50;
	const original = Array.from({ length: size }, (_, index) => `line ${index};`).join("\n");
	const calls = (paths: (index: number) => string): ToolCall[] =>
		Array.from({ length: size }, (_, index) => ({
			type: "toolCall",
			id: `call-${index}`,
			name: "edit",
			arguments: { path: paths(index), old_string: `line ${index};`, new_string: `LINE ${index};` },
		}));
	const expected = Array.from({ length: size }, (_, index) => `LINE ${index};`).join("\n");

	it("50 edits of different lines in one parallel batch all land (edit is a barrier)", async () => {
		const path = await fileWith(original);
		const { messages } = await executeToolCalls({ tools: [createEditTool(tempDir())], toolCalls: calls(() => path) });
		expect(messages.filter((message) => message.isError)).toEqual([]);
		expect(await readFile(path, "utf8")).toBe(expected);
	});

	it("all 50 land even when edit runs in parallel: the mutation queue serializes them, whatever the path spelling", async () => {
		await mkdir(join(tempDir(), "dir"));
		const path = join(tempDir(), "dir", "file.txt");
		await writeFile(path, original);
		await symlink("dir", join(tempDir(), "alias"));
		const spellings = [path, "dir/file.txt", "./dir/../dir/file.txt", "alias/file.txt"];
		const parallelEdit = { ...createEditTool(tempDir()), executionMode: "parallel" as const };
		const { messages } = await executeToolCalls({
			tools: [parallelEdit],
			toolCalls: calls((index) => spellings[index % spellings.length] ?? path),
			toolExecution: "parallel",
		});
		expect(messages.filter((message) => message.isError)).toEqual([]);
		expect(await readFile(path, "utf8")).toBe(expected);
	});
});

describe("edit tool: paths", () => {
	it("finds a file whose name differs only by Unicode spaces, and suggests close names on a miss", async () => {
		const path = await fileWith("a\n", "Screenshot 2024 at 10.00.00\u202fAM.txt");
		await edit({ path: "Screenshot 2024 at 10.00.00 AM.txt", old_string: "a", new_string: "b" });
		expect(await readFile(path, "utf8")).toBe("b\n");
		await fileWith("x\n", "config.json");
		expect(await editError({ path: "confg.json", old_string: "x", new_string: "y" })).toMatch(
			/File not found: confg\.json\nDid you mean: config\.json\?.*use write/s,
		);
	});
});
