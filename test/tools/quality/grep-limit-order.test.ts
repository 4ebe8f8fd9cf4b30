import { describe, expect, it } from "vitest";
import { createGrepTool } from "../../../src/tools/grep.js";
import { resultText } from "../../helpers/results.js";
import { useTempDir } from "../../helpers/temp-dir.js";
import { backends, writeTree } from "../search/fixtures.js";

const temp = useTempDir();

describe("grep limit", () => {
	for (const { name, backend } of backends) {
		it(`returns the first N matches in path order, the same on every call (${name})`, async () => {
			const files: Record<string, string> = {};
			// Big files late in path order finish last in a parallel search; small early ones first.
			for (let index = 0; index < 60; index++) {
				const padded = String(index).padStart(2, "0");
				const filler = index < 30 ? "filler\n".repeat(20_000) : "";
				files[`d${index % 3}/f${padded}.txt`] = `${filler}hit one\nctx\nhit two\n`;
			}
			await writeTree(temp(), files);
			const grep = createGrepTool(temp(), { backend });
			const first = await grep.execute("1", { pattern: "hit", limit: 5, context: 1 }, undefined);
			const lines = (resultText(first).split("\n\n")[0] ?? "").split("\n");
			const matches = lines.filter((line) => /^d\d\/f\d\d\.txt:/.test(line));
			expect(matches).toEqual([
				"d0/f00.txt:20001: hit one",
				"d0/f00.txt:20003: hit two",
				"d0/f03.txt:20001: hit one",
				"d0/f03.txt:20003: hit two",
				"d0/f06.txt:20001: hit one",
			]);
			// The context after the last kept match stays; nothing of the dropped match does.
			expect(resultText(first)).toContain("d0/f06.txt-20002- ctx");
			expect(resultText(first)).not.toContain("d0/f06.txt:20003");
			expect(first.details?.matchLimitReached).toBe(5);
			for (let call = 0; call < 3; call++) {
				const again = await grep.execute(String(call), { pattern: "hit", limit: 5, context: 1 }, undefined);
				expect(resultText(again)).toBe(resultText(first));
			}
		});
	}
});

describe("grep with no match", () => {
	for (const { name, backend } of backends) {
		it(`says how many files it skipped as binary (${name})`, async () => {
			await writeTree(temp(), { "a.txt": "nothing here\n", "b.txt": "plain\n" });
			const { writeFile } = await import("node:fs/promises");
			const { join } = await import("node:path");
			await writeFile(join(temp(), "blob.bin"), Buffer.from("needle\0\x01\x02"));
			await writeFile(join(temp(), "data.db"), Buffer.from("\0\0needle"));
			const result = await createGrepTool(temp(), { backend }).execute("1", { pattern: "absent" }, undefined);
			expect(resultText(result)).toBe(
				"No matches found\n\n[Skipped: 2 binary files (blob.bin, data.db). grep does not search binary files: name one as path to learn whether it matches, or use read to see what it is.]",
			);
			const clean = await createGrepTool(temp(), { backend }).execute(
				"2",
				{ pattern: "absent", include: "*.txt" },
				undefined,
			);
			expect(resultText(clean)).toBe("No matches found");
		});
	}
});
