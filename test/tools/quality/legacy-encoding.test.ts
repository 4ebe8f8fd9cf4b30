import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createEditTool } from "../../../src/tools/edit.js";
import { createGrepTool } from "../../../src/tools/grep.js";
import { createReadTool } from "../../../src/tools/read.js";
import { createWriteTool } from "../../../src/tools/write.js";
import { detectLegacyEncoding } from "../../../src/workspace/files/legacy-encoding.js";
import { resultText } from "../../helpers/results.js";
import { useTempDir } from "../../helpers/temp-dir.js";
import { backends } from "../search/fixtures.js";

const temp = useTempDir();
/** "café crème\nnaïve – “quoted” €5\n" in Windows-1252. */
const WINDOWS = Buffer.from([
	...Buffer.from("caf"),
	0xe9,
	...Buffer.from(" cr"),
	0xe8,
	...Buffer.from("me\nna"),
	0xef,
	...Buffer.from("ve "),
	0x96,
	0x20,
	0x93,
	...Buffer.from("quoted"),
	0x94,
	0x20,
	0x80,
	...Buffer.from("5\n"),
]);
/** "Grüße aus Köln\n" in Latin-1. */
const LATIN = Buffer.from("Grüße aus Köln\n", "latin1");

describe("legacy single-byte text", () => {
	it("tells Latin-1 and Windows-1252 from UTF-8 and binary", () => {
		expect(detectLegacyEncoding(LATIN)).toBe("latin-1");
		expect(detectLegacyEncoding(WINDOWS)).toBe("windows-1252");
		expect(detectLegacyEncoding(Buffer.from("café\n"))).toBeUndefined();
		expect(detectLegacyEncoding(Buffer.from([0xe9, 0x01, 0x02, 0x41]))).toBeUndefined();
		expect(detectLegacyEncoding(Buffer.from([0x81, 0x41]))).toBeUndefined();
	});

	it("read shows the text decoded with a notice naming the encoding", async () => {
		await writeFile(join(temp(), "w.txt"), WINDOWS);
		await writeFile(join(temp(), "l.txt"), LATIN);
		const read = createReadTool(temp());
		const windows = await read.execute("1", { path: "w.txt" }, undefined);
		expect(resultText(windows)).toContain("     1\tcafé crème\n     2\tnaïve – “quoted” €5");
		expect(resultText(windows)).toContain("w.txt is Windows-1252 text, not UTF-8: shown decoded");
		expect(windows.details).toMatchObject({ kind: "text", encoding: "windows-1252" });
		const latin = await read.execute("2", { path: "l.txt" }, undefined);
		expect(resultText(latin)).toContain("     1\tGrüße aus Köln");
		expect(resultText(latin)).toContain("Latin-1 (ISO-8859-1)");
	});

	it("edit changes one word and keeps every other byte in the old encoding", async () => {
		const path = join(temp(), "w.txt");
		await writeFile(path, WINDOWS);
		const result = await createEditTool(temp()).execute(
			"1",
			{ path: "w.txt", old_string: "café crème", new_string: "thé crème" },
			undefined,
		);
		expect(resultText(result)).toContain("Kept the file's Windows-1252 encoding.");
		const expected = Buffer.concat([Buffer.from([0x74, 0x68, 0xe9]), WINDOWS.subarray(4)]);
		expect(await readFile(path)).toEqual(expected);
	});

	it("edit refuses characters the encoding cannot hold and leaves the file unchanged", async () => {
		const path = join(temp(), "l.txt");
		await writeFile(path, LATIN);
		await expect(
			createEditTool(temp()).execute("1", { path: "l.txt", old_string: "Köln", new_string: "東京" }, undefined),
		).rejects.toThrow(/Latin-1 \(ISO-8859-1\) text, which cannot hold "東", "京"; the file was left unchanged/);
		expect(await readFile(path)).toEqual(LATIN);
	});

	it("write keeps a legacy file's encoding, and says when new characters force UTF-8", async () => {
		const path = join(temp(), "l.txt");
		await writeFile(path, LATIN);
		const write = createWriteTool(temp());
		const kept = await write.execute("1", { path: "l.txt", content: "Grüße aus München\n" }, undefined);
		expect(resultText(kept)).toContain("Kept the file's Latin-1 (ISO-8859-1) encoding.");
		expect(await readFile(path)).toEqual(Buffer.from("Grüße aus München\n", "latin1"));
		const changed = await write.execute("2", { path: "l.txt", content: "Grüße ✓\n" }, undefined);
		expect(resultText(changed)).toContain('holds "✓", which that encoding lacks, so it was written as UTF-8');
		expect(await readFile(path, "utf8")).toBe("Grüße ✓\n");
	});

	for (const { name, backend } of backends) {
		it(`grep shows decoded lines (${name})`, async () => {
			await writeFile(join(temp(), "w.txt"), WINDOWS);
			const result = await createGrepTool(temp(), { backend }).execute("1", { pattern: "quoted" }, undefined);
			expect(resultText(result)).toBe("w.txt:2: naïve – “quoted” €5");
		});
	}
});
