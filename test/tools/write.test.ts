import { chmod, lstat, mkdir, readdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { executeToolCalls } from "../../src/engine/execute-tool-calls.js";
import { createWriteTool, createWriteToolDefinition } from "../../src/tools/write.js";
import { type FileOperations, localFileOperations } from "../../src/workspace/local/files/operations.js";
import { type HasContent, resultText } from "../helpers/results.js";
import { useTempDir } from "../helpers/temp-dir.js";

const temp = useTempDir();

function text(result: HasContent): string {
	return resultText(result);
}

describe("write tool", () => {
	it("creates a file with its parent folders and reports real UTF-8 bytes and lines", async () => {
		const tool = createWriteTool(temp());
		const content = "héllo ✓\nsecond 😀\n";
		const result = await tool.execute("1", { path: "deep/er/new.txt", content }, undefined);
		expect(await readFile(join(temp(), "deep/er/new.txt"), "utf8")).toBe(content);
		expect(result.details).toEqual({
			path: "deep/er/new.txt",
			absolutePath: join(temp(), "deep/er/new.txt"),
			created: true,
			bytes: Buffer.byteLength(content),
			lines: 2,
		});
		expect(text(result)).toBe(`Created deep/er/new.txt: 2 lines, ${Buffer.byteLength(content)} bytes.`);
	});

	it("says when it replaced a file, keeps its mode, and writes content exactly (CRLF, no newline added)", async () => {
		const path = join(temp(), "script.sh");
		await writeFile(path, "old\n");
		await chmod(path, 0o755);
		const result = await createWriteTool(temp()).execute("1", { path: "script.sh", content: "a\r\nb" }, undefined);
		expect(result.details?.created).toBe(false);
		expect(text(result)).toMatch(/^Replaced script\.sh: 2 lines, 4 bytes\.$/);
		expect(await readFile(path, "utf8")).toBe("a\r\nb");
		expect((await stat(path)).mode & 0o777).toBe(0o755);
	});

	it("keeps a symlink a symlink and updates its target", async () => {
		await mkdir(join(temp(), "real"));
		await writeFile(join(temp(), "real/config.json"), "{}");
		await symlink("real/config.json", join(temp(), "config.json"));
		const result = await createWriteTool(temp()).execute("1", { path: "config.json", content: '{"a":1}' }, undefined);
		expect((await lstat(join(temp(), "config.json"))).isSymbolicLink()).toBe(true);
		expect(await readFile(join(temp(), "real/config.json"), "utf8")).toBe('{"a":1}');
		expect(text(result)).toContain("through the symlink, to real/config.json");
	});

	it("writes an empty file as 0 lines, 0 bytes", async () => {
		const result = await createWriteTool(temp()).execute("1", { path: "empty", content: "" }, undefined);
		expect(result.details).toMatchObject({ bytes: 0, lines: 0, created: true });
		expect((await stat(join(temp(), "empty"))).size).toBe(0);
		expect(text(result)).toBe("Created empty: 0 lines, 0 bytes.");
	});

	it("creates the file a pasted path with surrounding whitespace means", async () => {
		const result = await createWriteTool(temp()).execute("1", { path: " sub/x.txt\n", content: "x\n" }, undefined);
		expect(text(result)).toBe("Created sub/x.txt: 1 line, 2 bytes.");
		expect(await readdir(temp())).toEqual(["sub"]);
		expect(await readdir(join(temp(), "sub"))).toEqual(["x.txt"]);
	});

	it("counts a single byte in the singular", async () => {
		const result = await createWriteTool(temp()).execute("1", { path: "one", content: "x" }, undefined);
		expect(text(result)).toBe("Created one: 1 line, 1 byte.");
	});

	it("replaces the existing file whose name differs only by a Unicode space", async () => {
		await writeFile(join(temp(), "my\u00a0notes.md"), "old");
		await createWriteTool(temp()).execute("1", { path: "my notes.md", content: "new" }, undefined);
		expect(await readdir(temp())).toEqual(["my\u00a0notes.md"]);
		expect(await readFile(join(temp(), "my\u00a0notes.md"), "utf8")).toBe("new");
	});

	it("explains a directory target and a parent that is a file", async () => {
		await mkdir(join(temp(), "dir"));
		await writeFile(join(temp(), "file"), "");
		const tool = createWriteTool(temp());
		await expect(tool.execute("1", { path: "dir", content: "x" }, undefined)).rejects.toThrow(
			"Cannot write dir: it is a directory. Give the path of a file (for a new file in it: dir/<name>).",
		);
		await writeFile(join(temp(), "locked.txt"), "keep");
		await chmod(join(temp(), "locked.txt"), 0o444);
		await expect(tool.execute("1", { path: "locked.txt", content: "x" }, undefined)).rejects.toThrow(
			/^Cannot write locked\.txt: permission denied\. It may be read-only .*check with ls -l/,
		);
		expect(await readFile(join(temp(), "locked.txt"), "utf8")).toBe("keep");
		await expect(tool.execute("1", { path: "file/child.txt", content: "x" }, undefined)).rejects.toThrow(
			/Cannot write file\/child\.txt: a part of the path is a file/,
		);
	});

	it("serializes concurrent writes of one file in call order: the last content wins whole, no temp files remain", async () => {
		const tool = createWriteTool(temp());
		const contents = Array.from({ length: 20 }, (_, index) => `${index}`.repeat(50_000));
		for (const round of [1, 2, 3, 4, 5]) {
			// The first call finds no file (a slower look-up) and later ones may find it: order must still hold.
			await Promise.all(
				contents.map((content, index) => tool.execute(`${index}`, { path: `same${round}.txt`, content }, undefined)),
			);
			expect(await readFile(join(temp(), `same${round}.txt`), "utf8")).toBe(contents[19]);
		}
		expect(await readdir(temp())).toEqual(["same1.txt", "same2.txt", "same3.txt", "same4.txt", "same5.txt"]);
	});

	it("lands two writes of one path in call order even when the first one's look-up is slower", async () => {
		let first = true;
		const slowFirst = async () => {
			if (!first) return;
			first = false;
			await new Promise((resolve) => setTimeout(resolve, 100));
		};
		// The look-up of a path not there yet goes through statIfExists; slow down both spellings.
		const operations: FileOperations = {
			...localFileOperations,
			stat: async (path) => {
				await slowFirst();
				return localFileOperations.stat(path);
			},
			statIfExists: async (path, options) => {
				await slowFirst();
				return localFileOperations.statIfExists?.(path, options);
			},
		};
		const tool = createWriteTool(temp(), { operations });
		await Promise.all([
			tool.execute("1", { path: "order.txt", content: "first" }, undefined),
			tool.execute("2", { path: "order.txt", content: "second" }, undefined),
		]);
		expect(await readFile(join(temp(), "order.txt"), "utf8")).toBe("second");
	});

	it("is a sequential, destructive tool whose errors become one error result", async () => {
		const tool = createWriteTool(temp());
		expect(tool.executionMode).toBe("sequential");
		expect(createWriteToolDefinition(temp()).annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
		await mkdir(join(temp(), "dir"));
		const { messages } = await executeToolCalls({
			tools: [tool],
			toolCalls: [{ type: "toolCall", id: "a", name: "write", arguments: { path: "dir", content: "x" } }],
		});
		expect(messages[0]?.isError).toBe(true);
		expect(text(messages[0]!)).toContain("it is a directory");
	});

	it("accepts file_path and contents as other agents name them", async () => {
		const { messages } = await executeToolCalls({
			tools: [createWriteTool(temp())],
			toolCalls: [{ type: "toolCall", id: "a", name: "write", arguments: { file_path: "x.txt", contents: "hi\n" } }],
		});
		expect(messages[0]?.isError).toBe(false);
		expect(await readFile(join(temp(), "x.txt"), "utf8")).toBe("hi\n");
	});
});
