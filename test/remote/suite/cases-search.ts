import { expect } from "vitest";
import type { SuiteCase } from "./case-context.js";

// grep and find: the same results on every backend, from the workspace's own disk.

export const searchCases: SuiteCase[] = [
	{
		name: "grep and find give the same results, ignore rules included",
		run: async (t) => {
			t.disk.put(".gitignore", "build/\n");
			t.disk.put("src/a.ts", "const needle = 1;\nother\n");
			t.disk.put("src/deep/b.ts", "x\nneedle again\n");
			t.disk.put("build/out.ts", "needle in build\n");
			const grep = await t.call("grep", { pattern: "needle", literal: true });
			expect(grep.isError, grep.text).toBe(false);
			expect(grep.text).toMatch(/src\/a\.ts:1:.*needle/);
			expect(grep.text).toMatch(/src\/deep\/b\.ts:2: needle again/);
			expect(grep.text).not.toContain("build/out.ts");
			const context = await t.call("grep", { pattern: "^x$", context: 1 });
			expect(context.text).toMatch(/src\/deep\/b\.ts:1: x\n.*src\/deep\/b\.ts-2- needle again/);
			const find = await t.call("find", { pattern: "**/*.ts" });
			expect(find.isError, find.text).toBe(false);
			expect(find.text).toContain("src/a.ts");
			expect(find.text).toContain("src/deep/b.ts");
			expect(find.text).not.toContain("build/out.ts");
			expect((await t.call("grep", { pattern: "nowhere-to-be-found" })).text).toMatch(/No match/i);
		},
	},
	{
		name: "a file name holding a newline is one result of grep and of find, shown escaped",
		run: async (t) => {
			t.disk.put("two\nlines.txt", "needle here\n");
			t.disk.put("plain.txt", "needle too\n");
			const grep = await t.call("grep", { pattern: "needle" });
			expect(grep.isError, grep.text).toBe(false);
			expect(grep.text).toMatch(/two\\nlines\.txt:1: needle here/);
			expect(grep.text).toMatch(/plain\.txt:1: needle too/);
			expect(grep.text).not.toMatch(/^lines\.txt/m);
			expect(grep.text).not.toContain("two\nlines");
			const find = await t.call("find", { pattern: "*.txt" });
			expect(find.isError, find.text).toBe(false);
			const names = find.text.split("\n").filter((line) => line.endsWith(".txt"));
			expect(names.sort()).toEqual(["plain.txt", "two\\nlines.txt"]);
		},
	},
];
