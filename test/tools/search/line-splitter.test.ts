import { describe, expect, it } from "vitest";
import { GrepOutputSplitter } from "../../../src/workspace/local/search/long-lines/grep-output-splitter.js";
import { parseGrepLine } from "../../../src/workspace/local/search/ripgrep-backend.js";

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
