import { mkdir, open, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { executeToolCalls } from "../../src/engine/execute-tool-calls.js";
import { createReadTool, type ReadTextDetails, type ReadToolOptions } from "../../src/tools/read.js";
import { type HasContent, resultText } from "../helpers/results.js";
import { useTempDir } from "../helpers/temp-dir.js";

const temp = useTempDir();

function text(result: HasContent): string {
	return resultText(result);
}

async function read(args: { path: string; offset?: number; limit?: number }, options?: ReadToolOptions) {
	const result = await createReadTool(temp(), options).execute("1", args, undefined);
	return { result, text: text(result), details: result.details as ReadTextDetails };
}

function numbered(lines: string[], first = 1): string {
	return lines.map((line, index) => `${String(first + index).padStart(6)}\t${line}`).join("\n");
}

describe("read tool: text", () => {
	it("numbers lines cat -n style and adds no notice for a whole small file", async () => {
		await writeFile(join(temp(), "a.txt"), "alpha\n\tbeta\n\ngamma\n");
		const { text: output, details } = await read({ path: "a.txt" });
		expect(output).toBe(numbered(["alpha", "\tbeta", "", "gamma"]));
		expect(details).toMatchObject({ startLine: 1, endLine: 4, totalLines: 4, truncated: false, nextOffset: undefined });
	});

	it("counts a last line without a newline, strips CRLF and handles mixed endings", async () => {
		await writeFile(join(temp(), "crlf.txt"), "one\r\ntwo\r\nthree");
		expect((await read({ path: "crlf.txt" })).text).toBe(numbered(["one", "two", "three"]));
		await writeFile(join(temp(), "mixed.txt"), "a\r\nb\nc\r\n");
		const mixed = await read({ path: "mixed.txt" });
		expect(mixed.text).toBe(numbered(["a", "b", "c"]));
		expect(mixed.details.totalLines).toBe(3);
	});

	it("does not show a UTF-8 BOM as a character", async () => {
		await writeFile(
			join(temp(), "bom.txt"),
			Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("héllo\nworld\n")]),
		);
		expect((await read({ path: "bom.txt" })).text).toBe(numbered(["héllo", "world"]));
	});

	it("pages with offset and limit, ending with the exact offset to continue", async () => {
		await writeFile(join(temp(), "n.txt"), Array.from({ length: 10 }, (_, index) => `line ${index + 1}`).join("\n"));
		const page = await read({ path: "n.txt", offset: 3, limit: 4 });
		expect(page.text).toBe(
			`${numbered(["line 3", "line 4", "line 5", "line 6"], 3)}\n\n[Showing lines 3-6 of 10. Use offset=7 to continue.]`,
		);
		expect(page.details).toMatchObject({ startLine: 3, endLine: 6, nextOffset: 7, truncatedBy: "lines" });
		const last = await read({ path: "n.txt", offset: 7 });
		expect(last.text).toBe(
			`${numbered(["line 7", "line 8", "line 9", "line 10"], 7)}\n\n[Showing lines 7-10 of 10: end of file.]`,
		);
		expect((await read({ path: "n.txt", offset: 0, limit: 1 })).text).toMatch(/^ {5}1\tline 1\n/);
	});

	it("fails for an offset beyond the end, naming the line count", async () => {
		await writeFile(join(temp(), "three.txt"), "a\nb\nc\n");
		await expect(read({ path: "three.txt", offset: 4 })).rejects.toThrow(
			"offset 4 is beyond the end of three.txt: the file has 3 lines. Use an offset from 1 to 3.",
		);
		await writeFile(join(temp(), "empty.txt"), "");
		expect((await read({ path: "empty.txt" })).text).toBe("empty.txt is empty (0 lines).");
		await expect(read({ path: "empty.txt", offset: 2 })).rejects.toThrow("the file has 0 lines");
	});

	it("tells how to convert UTF-16 text instead of calling it binary", async () => {
		await writeFile(
			join(temp(), "u16.txt"),
			Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("hi\r\n", "utf16le")]),
		);
		const { text: output, result } = await read({ path: "u16.txt" });
		expect(output).toMatch(
			/^u16\.txt is UTF-16 text \(10 B\), which read does not decode\. Convert it via bash \(iconv -f UTF-16/,
		);
		expect(result.details).toMatchObject({ kind: "binary", mimeType: "text/plain; charset=utf-16" });
	});

	it("does not call a /proc file empty just because it reports a size of 0", async () => {
		const { text: output } = await read({ path: "/proc/self/status" });
		expect(output).not.toContain("is empty");
		expect(output).toMatch(/^\s+1\tName:\t/);
	});

	it("stops at 2,000 lines by default and at 50 KB, whichever comes first", async () => {
		await writeFile(join(temp(), "many.txt"), Array.from({ length: 2500 }, (_, index) => `${index + 1}`).join("\n"));
		const lines = await read({ path: "many.txt" });
		expect(lines.details).toMatchObject({ endLine: 2000, totalLines: 2500, truncatedBy: "lines", nextOffset: 2001 });
		expect(lines.text.endsWith("[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]")).toBe(true);

		await writeFile(join(temp(), "wide.txt"), Array.from({ length: 1000 }, () => "x".repeat(200)).join("\n"));
		const bytes = await read({ path: "wide.txt" });
		const body = bytes.text.slice(0, bytes.text.indexOf("\n\n["));
		expect(Buffer.byteLength(body)).toBeLessThanOrEqual(50 * 1024);
		expect(bytes.details.truncatedBy).toBe("bytes");
		expect(bytes.text).toContain(`Use offset=${bytes.details.endLine + 1} to continue.`);
		expect(bytes.text).toContain("50.0 KB output limit reached");
	});

	it("cuts lines over 2,000 characters with a marker that counts what was cut", async () => {
		const long = "é".repeat(2500);
		await writeFile(join(temp(), "long.txt"), `short\n${long}\nafter\n`);
		const { text: output, details } = await read({ path: "long.txt" });
		expect(output).toContain(`     2\t${"é".repeat(2000)}… [line truncated, 500 more characters]`);
		expect(output).toContain("     3\tafter");
		expect(details.longLinesCut).toBe(1);
	});

	it("keeps memory flat for one huge line spanning many chunks, and decodes characters split across chunks", async () => {
		// 3 MB of 3-byte characters: chunk borders (1 MiB) fall inside characters.
		const huge = "€".repeat(1_000_000);
		await writeFile(join(temp(), "huge-line.txt"), `${huge}\r\nnext\n`);
		const { text: output } = await read({ path: "huge-line.txt" });
		expect(output).toBe(
			numbered([`${"€".repeat(2000)}… [line truncated, 998000 more characters]`, "next"]) +
				"\n\n[1 line was longer than 2000 characters and cut (the first: line 1); to see the rest of one, use bash: sed -n '1p' huge-line.txt | cut -c2001-]",
		);
		const split = `${"a".repeat(1024 * 1024 - 1)}\n€ after the border\n`;
		await writeFile(join(temp(), "split.txt"), split);
		expect((await read({ path: "split.txt", offset: 2 })).text).toContain("     2\t€ after the border");
	});

	it("refuses bytes that are neither UTF-8 nor legacy text with a notice instead of mojibake", async () => {
		await writeFile(join(temp(), "odd.txt"), Buffer.from([0x63, 0x61, 0x66, 0x81, 0x01, 0x0a]));
		const { text: output, result } = await read({ path: "odd.txt" });
		expect(output).toMatch(/^odd\.txt is not UTF-8 text \(.*\)\. Its bytes are not shown/);
		expect(output).not.toContain("\ufffd");
		expect(result.details).toMatchObject({ kind: "binary", reason: "invalid-utf8", size: 6 });
	});

	it("refuses invalid UTF-8 on a page after the first 8 KB, naming the line", async () => {
		const head = `${"ok\n".repeat(5000)}`;
		await writeFile(join(temp(), "late.txt"), Buffer.concat([Buffer.from(head), Buffer.from([0x66, 0xff, 0x0a])]));
		expect((await read({ path: "late.txt", limit: 10 })).text).toContain("    10\tok");
		const { text: output } = await read({ path: "late.txt", offset: 4990 });
		expect(output).toContain(
			"late.txt is not UTF-8 text (invalid UTF-8, 14.7 KB): line 5001 has bytes that are not valid UTF-8",
		);
	});

	it("gives binary files a short notice with type and size", async () => {
		await writeFile(join(temp(), "data.bin"), Buffer.from([1, 2, 0, 3, 4]));
		const binary = await read({ path: "data.bin" });
		expect(binary.text).toBe("data.bin is a binary file (binary data, 5 B). Its bytes are not shown.");
		await writeFile(join(temp(), "archive.txt"), gzipSync(Buffer.alloc(10_000, 0x61)));
		const gzip = await read({ path: "archive.txt" });
		expect(gzip.text).toMatch(/^archive\.txt is a binary file \(application\/gzip, \.gz, \d+ B\)\./);
		expect(gzip.result.details).toMatchObject({ kind: "binary", mimeType: "application/gzip" });
	});

	it("says File not found with a close name, points a directory to ls, and names a broken symlink", async () => {
		await mkdir(join(temp(), "src"));
		await writeFile(join(temp(), "src", "index.ts"), "");
		await expect(read({ path: "src/index.js" })).rejects.toThrow(
			"File not found: src/index.js\nDid you mean: src/index.ts?",
		);
		await expect(read({ path: "nowhere/x.ts" })).rejects.toThrow(
			"File not found: nowhere/x.ts\nThe folder nowhere does not exist either.",
		);
		await expect(read({ path: "src" })).rejects.toThrow("src is a directory, not a file. Use ls to list its entries.");
		await symlink("gone.ts", join(temp(), "src", "link.ts"));
		await expect(read({ path: "src/link.ts" })).rejects.toThrow(
			"src/link.ts is a broken symlink: its target gone.ts does not exist.",
		);
	});

	it("reads through symlinks, finds macOS screenshot and NFD names, and shows absolute paths inside cwd relatively", async () => {
		await writeFile(join(temp(), "target.txt"), "through\n");
		await symlink("target.txt", join(temp(), "link.txt"));
		expect((await read({ path: "link.txt" })).text).toBe(numbered(["through"]));
		const screenshot = "Screen Shot 2024-03-01 at 9.41.07\u202fAM.txt";
		await writeFile(join(temp(), screenshot), "shot\n");
		const found = await read({ path: join(temp(), "Screen Shot 2024-03-01 at 9.41.07 AM.txt") });
		expect(found.text).toBe(numbered(["shot"]));
		expect(found.details.path).toBe(screenshot);
		await writeFile(join(temp(), "Re\u0301sume\u0301.txt"), "nfd\n");
		expect((await read({ path: "Résumé.txt" })).text).toBe(numbered(["nfd"]));
	});

	it("streams: the first page of a large file does not depend on its size, and the total is left open", async () => {
		// 20 MB: above the size up to which the rest is counted.
		const line = `${"y".repeat(99)}\n`;
		const handle = await open(join(temp(), "large.txt"), "w");
		const block = Buffer.from(line.repeat(10_000));
		for (let index = 0; index < 20; index++) await handle.write(block);
		await handle.close();
		const started = performance.now();
		const first = await read({ path: "large.txt", limit: 10 });
		expect(performance.now() - started).toBeLessThan(1000);
		expect(first.details).toMatchObject({ endLine: 10, totalLines: undefined, nextOffset: 11 });
		expect(first.text).toContain(
			"[Showing lines 1-10 of a 19.1 MB file (total line count not computed). Use offset=11 to continue.]",
		);
		const last = await read({ path: "large.txt", offset: 199_999 });
		expect(last.details).toMatchObject({ startLine: 199_999, endLine: 200_000, totalLines: 200_000, truncated: false });
	});

	it("works on a 600 MB file without a whole-file string (sparse file)", async () => {
		const path = join(temp(), "sparse.txt");
		const handle = await open(path, "w");
		// Text over the first 8 KB (what is sniffed), then a 600 MB hole of NUL bytes, then a last line.
		await handle.write("first\nsecond\n".repeat(1000));
		await handle.truncate(600 * 1024 * 1024);
		await handle.write("\nlast line\n", 600 * 1024 * 1024);
		await handle.close();
		const rssBefore = process.memoryUsage().rss;
		const head = await read({ path: "sparse.txt", limit: 2 });
		expect(head.text).toContain("     2\tsecond");
		const tail = await read({ path: "sparse.txt", offset: 2002 });
		expect(tail.text).toBe(`${numbered(["last line"], 2002)}\n\n[Showing lines 2002-2002 of 2002: end of file.]`);
		const hole = await read({ path: "sparse.txt", offset: 2001, limit: 1 });
		expect(hole.text).toBe(
			"sparse.txt is a binary file (NUL bytes, 600.0 MB): line 2001 contains NUL bytes. Its bytes are not shown.",
		);
		expect(process.memoryUsage().rss - rssBefore).toBeLessThan(64 * 1024 * 1024);
	}, 60_000);

	it("is a parallel, read-only tool whose errors become error results", async () => {
		const tool = createReadTool(temp());
		expect(tool.executionMode).toBe("parallel");
		expect(tool.annotations).toMatchObject({ readOnlyHint: true });
		const { messages } = await executeToolCalls({
			tools: [tool],
			toolCalls: [{ type: "toolCall", id: "a", name: "read", arguments: { path: "missing.txt", offset: "2" } }],
		});
		expect(messages[0]?.isError).toBe(true);
		expect(text(messages[0]!)).toContain("File not found: missing.txt");
	});

	it("accepts the argument names other agents use (file_path, null options) and coerces strings", async () => {
		await writeFile(join(temp(), "a.txt"), "one\ntwo\nthree\n");
		const { messages } = await executeToolCalls({
			tools: [createReadTool(temp())],
			toolCalls: [
				{ type: "toolCall", id: "a", name: "read", arguments: { file_path: "a.txt", offset: "2", limit: null } },
			],
		});
		expect(messages[0]?.isError).toBe(false);
		expect(text(messages[0]!)).toBe(`${numbered(["two", "three"], 2)}\n\n[Showing lines 2-3 of 3: end of file.]`);
	});

	it("stops promptly when aborted", async () => {
		await writeFile(join(temp(), "a.txt"), "x\n");
		const controller = new AbortController();
		controller.abort();
		await expect(createReadTool(temp()).execute("1", { path: "a.txt" }, controller.signal)).rejects.toMatchObject({
			name: "AbortError",
		});
	});
});
