import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SCAN_CHUNK_BYTES } from "../../src/tools/read/chunk-reader.js";
import { countNewlines, countNewlinesByWords } from "../../src/tools/read/newline-count.js";
import { SNIFF_BYTES } from "../../src/tools/read/sniff.js";
import { createReadTool, type ReadTextDetails } from "../../src/tools/read.js";
import { resultText } from "../helpers/results.js";
import { useTempDir } from "../helpers/temp-dir.js";

const temp = useTempDir();
const MIB = 1024 * 1024;

function naiveCount(bytes: Uint8Array, start: number, end: number): number {
	let count = 0;
	for (let index = start; index < end; index++) if (bytes[index] === 0x0a) count++;
	return count;
}

/** A deterministic byte stream (no Math.random: a failure must repeat). */
function pseudoRandom(seed: number): () => number {
	let state = seed;
	return () => {
		state = (Math.imul(state, 1103515245) + 12345) >>> 0;
		return state >>> 16;
	};
}

describe.each([
	["by vector instructions where WebAssembly runs", countNewlines],
	["a word at a time", countNewlinesByWords],
])("read: newlines counted %s", (_, count) => {
	it("counts exactly what a byte-by-byte count finds, at every alignment and density", () => {
		const next = pseudoRandom(7);
		// Bytes that differ from a newline in one bit, and neighbours whose carries a sloppy test would mix up.
		const near = [0x0a, 0x0b, 0x08, 0x8a, 0x1a, 0x00, 0xff, 0x09, 0x7f, 0x80];
		for (let round = 0; round < 400; round++) {
			// Mostly short ranges; every tenth spans several of the vector count's 64 KiB pieces.
			const length = round % 10 === 9 ? 131072 + (next() % 70000) : next() % 9000;
			const bytes = Buffer.alloc(length + 8);
			const density = round % 4;
			for (let index = 0; index < bytes.length; index++) {
				bytes[index] =
					density === 0
						? 0x0a
						: density === 1
							? (near[next() % near.length] ?? 0)
							: density === 2 && next() % 70 === 0
								? 0x0a
								: next() & 0xff;
			}
			const view = bytes.subarray(round % 8);
			const start = next() % Math.min(9, view.length + 1);
			const end = view.length - (next() % Math.min(9, view.length - start + 1));
			expect(count(view, start, end)).toBe(naiveCount(view, start, end));
		}
	});

	it("does not overflow a lane on a megabyte of nothing but newlines", () => {
		expect(count(Buffer.alloc(MIB + 3, 0x0a))).toBe(MIB + 3);
	});
});

describe("read: pages of a file larger than one chunk", () => {
	it("shows the same lines and total as a split of the whole file, wherever the page falls", async () => {
		// ~3.4 MB of lines from empty to 300 bytes, so chunk boundaries fall inside lines, on newlines
		// and inside runs of empty lines; the last line has no newline.
		const next = pseudoRandom(11);
		const lines: string[] = [];
		let bytes = 0;
		while (bytes < 3.4 * MIB) {
			const line = next() % 5 === 0 ? "" : `line ${lines.length + 1} ${"x".repeat(next() % 300)}`;
			lines.push(line);
			bytes += line.length + 1;
		}
		await writeFile(join(temp(), "lines.txt"), lines.join("\n"));
		// The lines that hold the first bytes of each chunk, and their neighbours: a page further in
		// reads the sniff's bytes first, then chunks of SCAN_CHUNK_BYTES.
		const offsets = [1, 2, lines.length - 1, lines.length];
		const chunkOf = (byte: number) => Math.floor((byte - SNIFF_BYTES) / SCAN_CHUNK_BYTES);
		let position = 0;
		for (let index = 0; index < lines.length; index++) {
			const boundary = chunkOf(position + (lines[index]?.length ?? 0) + 1) > chunkOf(position);
			if (boundary) offsets.push(index, index + 1, index + 2);
			position += (lines[index]?.length ?? 0) + 1;
		}
		const tool = createReadTool(temp(), { unchangedReads: false });
		for (const offset of offsets) {
			const result = await tool.execute("1", { path: "lines.txt", offset, limit: 3 }, undefined);
			const details = result.details as ReadTextDetails;
			const expected = lines
				.slice(offset - 1, offset + 2)
				.map((line, index) => `${String(offset + index).padStart(6)}\t${line}`)
				.join("\n");
			expect(resultText(result).split("\n\n")[0]).toBe(expected);
			expect(details.totalLines).toBe(lines.length);
		}
		await expect(tool.execute("1", { path: "lines.txt", offset: lines.length + 1 }, undefined)).rejects.toThrow(
			`the file has ${lines.length} lines`,
		);
	});

	it("pages non-ASCII, CRLF and over-long lines within the 50 KB budget as a line-by-line count does", async () => {
		const lines = Array.from({ length: 4000 }, (_, index) =>
			index % 97 === 5
				? `${"é😀x".repeat(900)} long ${index}\r`
				: index % 3 === 0
					? `ligne ${index} — été 😀\r`
					: `line ${index} ${"a".repeat(index % 50)}`,
		);
		await writeFile(join(temp(), "mixed.txt"), lines.join("\n"));
		const tool = createReadTool(temp(), { unchangedReads: false });
		for (const offset of [1, 1234, 3990]) {
			const result = await tool.execute("1", { path: "mixed.txt", offset }, undefined);
			const shown: string[] = [];
			let bytes = 0;
			for (const [index, raw] of lines.slice(offset - 1).entries()) {
				let text = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
				if (text.length > 2000) {
					const end = /[\ud800-\udbff]/.test(text[1999] ?? "") ? 1999 : 2000;
					text = `${text.slice(0, end)}… [line truncated, ${text.length - end} more characters]`;
				}
				const formatted = `${String(offset + index).padStart(6)}\t${text}`;
				const size = Buffer.byteLength(formatted) + (shown.length > 0 ? 1 : 0);
				if (shown.length > 0 && bytes + size > 50 * 1024) break;
				shown.push(formatted);
				bytes += size;
			}
			expect(resultText(result).split("\n\n")[0]).toBe(shown.join("\n"));
			expect((result.details as ReadTextDetails).endLine).toBe(offset + shown.length - 1);
		}
	});

	it("numbers lines past 999,999 with all their digits, as cat -n does", async () => {
		await writeFile(join(temp(), "many.txt"), "x\n".repeat(1_000_005));
		const result = await createReadTool(temp()).execute(
			"1",
			{ path: "many.txt", offset: 999_999, limit: 3 },
			undefined,
		);
		expect(resultText(result).split("\n\n")[0]).toBe("999999\tx\n1000000\tx\n1000001\tx");
	});
});
