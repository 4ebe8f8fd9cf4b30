import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createFindTool } from "../../../src/tools/find.js";
import { caseInsensitiveGlob } from "../../../src/tools/search/find-patterns.js";
import { resultText } from "../../helpers/results.js";
import { useTempDir } from "../../helpers/temp-dir.js";
import { backends } from "../search/fixtures.js";

const temp = useTempDir();

async function tree(): Promise<void> {
	await mkdir(join(temp(), "app/(group)"), { recursive: true });
	await mkdir(join(temp(), "app/[id]"), { recursive: true });
	await writeFile(join(temp(), "file[1].txt"), "x");
	await writeFile(join(temp(), "file1.txt"), "x");
	await writeFile(join(temp(), "app/(group)/page.tsx"), "x");
	await writeFile(join(temp(), "app/[id]/page.tsx"), "x");
	await writeFile(join(temp(), "README.md"), "x");
	await writeFile(join(temp(), "notes.MD"), "x");
	await writeFile(join(temp(), "main.ts"), "x");
}

describe("find patterns", () => {
	it("spells a case-insensitive glob with classes", () => {
		expect(caseInsensitiveGlob("src/*.ts")).toBe("[sS][rR][cC]/*.[tT][sS]");
		expect(caseInsensitiveGlob("[a-c]x[!q]")).toBe("[a-cA-C][xX][!qQ]");
		expect(caseInsensitiveGlob("{foo,b}\\*")).toBe("{[fF][oO][oO],[bB]}\\*");
	});

	for (const { name, backend } of backends) {
		it(`lists an existing path the glob misses, saying why (${name})`, async () => {
			await tree();
			const find = createFindTool(temp(), { backend });
			const literal = resultText(await find.execute("1", { pattern: "app/[id]/page.tsx" }, undefined));
			expect(literal.split("\n")[0]).toBe("app/[id]/page.tsx");
			expect(literal).toContain("in a glob [id] is a character class matching one character");
			// A glob that matches something is answered as a glob, with no literal notice.
			expect(resultText(await find.execute("2", { pattern: "file[1].txt" }, undefined)).split("\n")[0]).toMatch(
				/^file(\[1\])?1?\.txt$/,
			);
			const group = resultText(await find.execute("3", { pattern: "app/(group)/page.tsx" }, undefined));
			expect(group.split("\n")[0]).toBe("app/(group)/page.tsx");
		});

		it(`matches case smartly, and exactly when asked (${name})`, async () => {
			await tree();
			const find = createFindTool(temp(), { backend });
			expect(resultText(await find.execute("1", { pattern: "*.md" }, undefined))).toBe("README.md\nnotes.MD");
			expect(resultText(await find.execute("2", { pattern: "*.MD" }, undefined))).toBe("notes.MD");
			expect(resultText(await find.execute("3", { pattern: "*.md", case_sensitive: true }, undefined))).toBe(
				"README.md",
			);
			expect(resultText(await find.execute("4", { pattern: "readme.MD", case_sensitive: false }, undefined))).toBe(
				"README.md",
			);
		});
	}

	it("a bad glob gets a glob hint, not grep's literal flag", async () => {
		await tree();
		const find = createFindTool(temp(), { backend: "ripgrep" });
		const error = await find.execute("1", { pattern: "src/[a" }, undefined).catch((caught: Error) => caught);
		expect(error).toBeInstanceOf(Error);
		expect((error as Error).message).toMatch(/^The pattern is not a valid glob:/);
		expect((error as Error).message).not.toContain("literal: true");
		expect((error as Error).message).toContain("[[]");
	});
});
