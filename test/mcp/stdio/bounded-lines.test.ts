import { describe, expect, it } from "vitest";
import { type BoundedLine, BoundedLineSplitter } from "../../../src/mcp/stdio/bounded-lines.js";
import { TopLevelIdScanner } from "../../../src/mcp/stdio/top-level-id.js";

/** Feeds `text` in pieces of `pieceBytes` (so tokens straddle chunk boundaries). */
function scanId(text: string, pieceBytes = 3): string | number | undefined {
	const scanner = new TopLevelIdScanner();
	const bytes = Buffer.from(text);
	for (let start = 0; start < bytes.length; start += pieceBytes)
		scanner.feed(bytes.subarray(start, start + pieceBytes));
	return scanner.id;
}

describe("TopLevelIdScanner", () => {
	it("finds the top-level id wherever it stands, whatever the pieces", () => {
		expect(scanId('{"jsonrpc":"2.0","id":7,"method":"x"}')).toBe(7);
		expect(scanId('{"method":"x","params":{"a":"b"},"jsonrpc":"2.0","id":"last"}', 1)).toBe("last");
		expect(scanId('{ "id" : "with, comma and } brace" , "x": 1 }', 5)).toBe("with, comma and } brace");
	});

	it("skips an id inside params, keys that only start with id, and escaped quotes", () => {
		expect(scanId('{"params":{"id":1,"list":[{"id":2}]},"idx":3,"id":4}')).toBe(4);
		expect(scanId('{"params":{"text":"\\"id\\":9, \\\\"},"method":"m"}')).toBeUndefined();
		expect(scanId('{"params":{"text":"a\\\\"},"id":5}', 2)).toBe(5);
	});

	it("gives no id for an object id, a missing one, or text that is not an object", () => {
		expect(scanId('{"id":{"nested":1},"method":"m"}')).toBeUndefined();
		expect(scanId('{"method":"m"}')).toBeUndefined();
		expect(scanId('[{"id":1}]')).toBeUndefined();
	});
});

describe("BoundedLineSplitter", () => {
	function split(pieces: string[], maxLineBytes: number): BoundedLine[] {
		const lines: BoundedLine[] = [];
		const splitter = new BoundedLineSplitter(maxLineBytes, (line) => lines.push(line));
		for (const piece of pieces) splitter.push(Buffer.from(piece));
		splitter.end();
		return lines;
	}

	it("joins lines across pieces and keeps a last line without newline", () => {
		expect(split(["ab", "c\nde", "f\n\ng"], 10)).toEqual([
			{ kind: "line", text: "abc" },
			{ kind: "line", text: "def" },
			{ kind: "line", text: "" },
			{ kind: "line", text: "g" },
		]);
	});

	it("drops a line over the limit with its size and id, then goes on with the next line", () => {
		const long = `{"params":"${"x".repeat(40)}","id":12}`;
		expect(split([long.slice(0, 10), long.slice(10), "\n", '{"id":1}\n'], 16)).toEqual([
			{ kind: "oversized", bytes: long.length, id: 12 },
			{ kind: "line", text: '{"id":1}' },
		]);
	});

	it("keeps a line of exactly the limit", () => {
		expect(split(["12345678\n"], 8)).toEqual([{ kind: "line", text: "12345678" }]);
		expect(split(["123456789\n"], 8)).toEqual([{ kind: "oversized", bytes: 9, id: undefined }]);
	});
});
