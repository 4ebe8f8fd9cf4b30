import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { GrepOutputSplitter } from "../../../src/workspace/local/search/long-lines/grep-output-splitter.js";
import { parseGrepLine } from "../../../src/workspace/local/search/ripgrep-backend.js";
import { locateRipgrep } from "../../../src/workspace/local/search/ripgrep-path.js";
import { OUTPUT_PIECE_BYTES, piecesOf, startRipgrep } from "../../../src/workspace/local/search/ripgrep-process.js";
import { useTempDir } from "../../helpers/temp-dir.js";

function split(chunks: string[]): string[] {
	const splitter = new GrepOutputSplitter();
	const lines = chunks.flatMap((chunk) => splitter.push(Buffer.from(chunk)));
	return [...lines, ...splitter.flush()].map((line) => line.toString("utf8"));
}

describe("GrepOutputSplitter", () => {
	it("joins a line that spans many chunks, once, and keeps the lines around it", () => {
		const long = "x".repeat(10_000);
		const chunks = ["first\nsec", "ond\n", ...long.match(/.{1,100}/g)!, "\nlast"];
		expect(split(chunks)).toEqual(["first", "second", long, "last"]);
	});

	it("gives nothing for empty chunks and no trailing line after a final newline", () => {
		expect(split(["", "a\n", "", "b\n", ""])).toEqual(["a", "b"]);
	});

	it("copies the unfinished tail, so a reused chunk buffer does not change it", () => {
		const splitter = new GrepOutputSplitter();
		const chunk = Buffer.from("abc");
		expect(splitter.push(chunk)).toEqual([]);
		chunk.write("zzz");
		expect(splitter.push(Buffer.from("def\n")).map(String)).toEqual(["abcdef"]);
	});
});

describe("GrepOutputSplitter on a line longer than its limit", () => {
	const splitLong = (line: Buffer, maxLineBytes: number) => {
		const splitter = new GrepOutputSplitter(maxLineBytes);
		const lines: Buffer[] = [];
		for (let start = 0; start < line.length; start += 1000)
			lines.push(...splitter.push(line.subarray(start, start + 1000)));
		return [...lines, ...splitter.flush()];
	};

	it("keeps the header and a window around the match, with the column moved to the same match", () => {
		const text = `${"x".repeat(200_000)}needle${"y".repeat(300_000)}`;
		const line = Buffer.from(`dir/a.txt\u00007:200001:${text}\n`);
		const [kept, ...rest] = splitLong(line, 50_000);
		expect(rest).toEqual([]);
		expect(kept?.length).toBeLessThan(1000);
		const parsed = parseGrepLine(kept as Buffer);
		expect(parsed).toMatchObject({ kind: "match", path: "dir/a.txt", lineNumber: 7 });
		expect(parsed?.text.slice(parsed.matchStart, (parsed.matchStart ?? 0) + 6)).toBe("needle");
		expect(parsed?.text).toMatch(
			/^\[… 199800 bytes of this line left out\] x+needley+ \[… 299806 bytes of this line left out\]$/,
		);
	});

	it("keeps the start of a long context line", () => {
		const line = Buffer.from(`a.txt\u00003-start${"z".repeat(100_000)}`);
		const parsed = parseGrepLine(splitLong(line, 10_000)[0] as Buffer);
		expect(parsed).toMatchObject({ kind: "context", lineNumber: 3 });
		expect(parsed?.text.startsWith("startzzz")).toBe(true);
		expect(parsed?.text.length).toBeLessThan(20_000);
	});

	it("gives the same line when each chunk's memory is reused after it was pushed", () => {
		const text = `${"x".repeat(30_000)}needle${"y".repeat(30_000)}`;
		const line = Buffer.from(`a.txt\u00001:30001:${text}\nnext.txt\u00002:1:short\n`);
		const fresh = splitLong(line, 10_000).map(String);
		const splitter = new GrepOutputSplitter(10_000);
		const reused = Buffer.alloc(1000);
		const lines: string[] = [];
		for (let start = 0; start < line.length; start += 1000) {
			const length = line.copy(reused, 0, start, start + 1000);
			lines.push(...splitter.push(reused.subarray(0, length)).map(String));
			reused.fill(0x21);
		}
		lines.push(...splitter.flush().map(String));
		expect(lines).toEqual(fresh);
		expect(lines[0]).toContain("xneedley");
		expect(lines[1]).toBe("next.txt\u00002:1:short");
	});
});

const temp = useTempDir();

describe("piecesOf", () => {
	it("gives a small chunk whole and a large one in views ending at a newline, in order", () => {
		const small = Buffer.from("a\nb\n");
		expect([...piecesOf(small)]).toEqual([small]);
		const large = Buffer.from(`${"x".repeat(99)}\n`.repeat(200));
		const pieces = [...piecesOf(large)];
		expect(pieces.length).toBe(3);
		for (const piece of pieces.slice(0, -1)) {
			expect(piece.length).toBeGreaterThanOrEqual(OUTPUT_PIECE_BYTES);
			expect(piece.length).toBeLessThan(OUTPUT_PIECE_BYTES + 100);
		}
		expect(pieces.every((piece) => piece.at(-1) === 0x0a)).toBe(true);
		expect(Buffer.concat(pieces).equals(large)).toBe(true);
		// Views: the chunk's memory, not copies.
		expect(pieces.every((piece) => piece.buffer === large.buffer)).toBe(true);
	});

	it("gives a chunk of one long line whole, and the unfinished end of a large one as its last piece", () => {
		const long = Buffer.alloc(OUTPUT_PIECE_BYTES * 3, "x");
		expect([...piecesOf(long)]).toEqual([long]);
		const ending = Buffer.concat([Buffer.from(`${"y".repeat(99)}\n`.repeat(100)), long]);
		const pieces = [...piecesOf(ending)];
		expect(pieces.at(-1)?.subarray(-long.length).equals(long)).toBe(true);
		expect(Buffer.concat(pieces).equals(ending)).toBe(true);
	});
});

describe("ripgrep's output read behind", () => {
	it("comes in batches of at most one piece of output, so a reader that stops early cuts no more", async () => {
		const location = await locateRipgrep();
		if (location.path === undefined) throw new Error(location.reason);
		// 1,000 lines of ~40 bytes: about 40 KB, within the pipe's buffer, so ripgrep ends before it is read.
		await writeFile(join(temp(), "many.txt"), "a line that holds the word hit, once\n".repeat(1000));
		const controller = new AbortController();
		const ripgrep = await startRipgrep(
			{
				rgPath: location.path,
				args: ["--no-config", "--line-number", "hit", "many.txt"],
				cwd: temp(),
				signal: controller.signal,
				alongside: true,
			},
			new GrepOutputSplitter(),
		);
		// The first batch is read, then this thread sleeps (the event loop with it) while ripgrep writes
		// the rest: the pipe then holds many of its 8 KB writes, which come in one chunk.
		const iterator = ripgrep.lines[Symbol.asyncIterator]();
		const batches: Buffer[][] = [];
		const first = await iterator.next();
		if (!first.done) batches.push(first.value);
		Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
		for (let next = await iterator.next(); !next.done; next = await iterator.next()) batches.push(next.value);
		const lines = batches.flat();
		expect(lines).toHaveLength(1000);
		expect(lines[999]?.toString()).toBe("1000:a line that holds the word hit, once");
		for (const batch of batches) {
			const bytes = batch.reduce((sum, line) => sum + line.length + 1, 0);
			// A line cut by a piece's end comes with the next piece's lines: one line over at most.
			expect(bytes).toBeLessThanOrEqual(OUTPUT_PIECE_BYTES + 64);
		}
		// Read behind, the output came in fewer chunks than batches.
		expect(batches.length).toBeGreaterThan(4);
	});
});
