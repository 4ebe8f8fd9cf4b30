import { describe, expect, it } from "vitest";
import { LineSplitter } from "../../../src/tools/search/line-splitter.js";

function split(chunks: string[]): string[] {
	const splitter = new LineSplitter();
	const lines = chunks.flatMap((chunk) => splitter.push(Buffer.from(chunk)));
	return [...lines, ...splitter.flush()].map((line) => line.toString("utf8"));
}

describe("LineSplitter", () => {
	it("joins a line that spans many chunks, once, and keeps the lines around it", () => {
		const long = "x".repeat(10_000);
		const chunks = ["first\nsec", "ond\n", ...long.match(/.{1,100}/g)!, "\nlast"];
		expect(split(chunks)).toEqual(["first", "second", long, "last"]);
	});

	it("gives nothing for empty chunks and no trailing line after a final newline", () => {
		expect(split(["", "a\n", "", "b\n", ""])).toEqual(["a", "b"]);
	});

	it("copies the unfinished tail, so a reused chunk buffer does not change it", () => {
		const splitter = new LineSplitter();
		const chunk = Buffer.from("abc");
		expect(splitter.push(chunk)).toEqual([]);
		chunk.write("zzz");
		expect(splitter.push(Buffer.from("def\n")).map(String)).toEqual(["abcdef"]);
	});
});
