import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { countFileNewlines, countNewlines } from "../../../src/tools/shell/line-count.js";
import { useTempDir } from "../../helpers/temp-dir.js";

function naive(bytes: Uint8Array): number {
	let count = 0;
	for (const byte of bytes) if (byte === 10) count++;
	return count;
}

describe("countNewlines", () => {
	it("matches a byte-by-byte count at every alignment and length", () => {
		const buffer = Buffer.alloc(300);
		let seed = 7;
		for (let index = 0; index < buffer.length; index++) {
			seed = (seed * 1103515245 + 12345) & 0x7fffffff;
			// Mostly newlines and their bit-neighbours (0x0b, 0x8a, 0x0a0a…), the cases a word trick can get wrong.
			buffer[index] = [10, 11, 138, 0, 255, 10, 42][seed % 7] ?? 0;
		}
		for (let start = 0; start < 8; start++) {
			for (let length = 0; length < 80; length++) {
				const slice = buffer.subarray(start, start + length);
				expect(countNewlines(slice)).toBe(naive(slice));
			}
		}
		expect(countNewlines(buffer)).toBe(naive(buffer));
	});

	it("counts a buffer made only of newlines", () => {
		expect(countNewlines(Buffer.alloc(1001, 10))).toBe(1001);
	});
});

describe("compileNewlineCountAhead", () => {
	afterEach(() => {
		vi.restoreAllMocks();
	});

	it("compiles the count off the call: the first large count then compiles nothing and counts right", async () => {
		// A copy of the module of its own (another id for the same file): the worker's may have counted already.
		const freshCopy = "../../../src/tools/read/newline-count.js?compile-ahead";
		const fresh = (await import(freshCopy)) as typeof import("../../../src/tools/read/newline-count.js");
		await fresh.compileNewlineCountAhead();
		const api = (globalThis as unknown as { WebAssembly: { Module: new (bytes: Uint8Array) => object } }).WebAssembly;
		const compileNow = vi.spyOn(api, "Module");
		const bytes = Buffer.alloc(200_003);
		for (let index = 0; index < bytes.length; index++) bytes[index] = index % 7 === 0 ? 10 : 97;
		expect(fresh.countNewlines(bytes)).toBe(naive(bytes));
		expect(compileNow).not.toHaveBeenCalled();
		// A second start is the same compile, not another.
		await fresh.compileNewlineCountAhead();
		expect(fresh.countNewlines(bytes.subarray(5))).toBe(naive(bytes.subarray(5)));
	});
});

describe("countFileNewlines", () => {
	const tempDir = useTempDir();

	it("counts the newlines of a file, including a name with spaces", async () => {
		const path = join(tempDir(), "full output.log");
		await writeFile(path, "a\nb\n\nlast");
		expect(await countFileNewlines(path)).toBe(3);
	});

	it("counts a large file whole (natively) or only its first limit bytes (a file still being appended to)", async () => {
		const path = join(tempDir(), "growing.log");
		const lines = 5 * 1024 * 1024;
		await writeFile(path, `${"x\n".repeat(lines)}tail\n`);
		expect(await countFileNewlines(path)).toBe(lines + 1);
		expect(await countFileNewlines(path, 2 * lines + 5)).toBe(lines + 1);
		expect(await countFileNewlines(path, 10)).toBe(5);
		expect(await countFileNewlines(path, 2 * lines + 1)).toBe(lines);
	});
});
