import { open, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createGrepTool } from "../../../src/tools/grep.js";
import { useTempDir } from "../../helpers/temp-dir.js";
import { textOf } from "./fixtures.js";

// The built-in search (the fallback when ripgrep cannot run) under patterns and lines that
// would freeze a backtracking engine or exhaust memory: every call answers.
describe("the built-in search under hostile patterns and lines", () => {
	const dir = useTempDir();
	const grep = () => createGrepTool(dir(), { backend: "walker" });

	it("runs a nested quantifier in linear time: (a+)+$ over a long line of a's answers", async () => {
		// On a backtracking engine this line would take longer than the age of the universe.
		await writeFile(join(dir(), "a.txt"), `${"a".repeat(5000)}b\naaa\n`);
		const result = await grep().execute("call", { pattern: "(a+)+$" }, undefined);
		expect(textOf(result)).toBe("a.txt:2: aaa");
	}, 20_000);

	it("keeps look-ahead and back-references, and stops one that backtracks without end", async () => {
		await writeFile(join(dir(), "a.txt"), "fooBar\nabab\n");
		expect(textOf(await grep().execute("call", { pattern: "foo(?=Bar)" }, undefined))).toBe("a.txt:1: fooBar");
		await writeFile(join(dir(), "b.txt"), `${"a".repeat(40)}b\n`);
		await expect(grep().execute("call", { pattern: "(?=(a+)+$)a", path: "b.txt" }, undefined)).rejects.toThrow(
			/backtracks catastrophically/,
		);
	}, 60_000);

	it("stops a catastrophic pattern when the call is cancelled", async () => {
		await writeFile(join(dir(), "b.txt"), `${"a".repeat(40)}b\n`);
		const controller = new AbortController();
		const call = grep().execute("call", { pattern: "(?=(a+)+$)a", path: "b.txt" }, controller.signal);
		setTimeout(() => controller.abort(), 200);
		await expect(call).rejects.toThrow(/abort/i);
	}, 60_000);

	it("passes over a line longer than its limit and says so, finding the matches around it", async () => {
		const path = join(dir(), "long.txt");
		const file = await open(path, "w");
		try {
			await file.write("needle before\n");
			const piece = Buffer.alloc(1024 * 1024, "x");
			for (let written = 0; written < 20; written++) await file.write(piece);
			await file.write(" needle inside\nneedle after\n");
		} finally {
			await file.close();
		}
		const text = textOf(await grep().execute("call", { pattern: "needle" }, undefined));
		expect(text).toContain("long.txt:1: needle before");
		expect(text).toContain("long.txt:3: needle after");
		expect(text).toMatch(/Lines longer than 16(\.0)? MB were not searched.*long\.txt:2/);
	}, 60_000);
});
