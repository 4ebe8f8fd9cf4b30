import { execFileSync } from "node:child_process";
import { link, mkdir, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createEditTool } from "../../../src/tools/edit.js";
import { createWriteTool } from "../../../src/tools/write.js";
import { resultText } from "../../helpers/results.js";
import { useTempDir } from "../../helpers/temp-dir.js";

const temp = useTempDir();

/** Makes a folder immutable (no new entries, even for root), for the length of `body`. */
async function withImmutableFolder(folder: string, body: () => Promise<void>): Promise<void> {
	execFileSync("chattr", ["+i", folder]);
	try {
		await body();
	} finally {
		execFileSync("chattr", ["-i", folder]);
	}
}

describe("write and edit keep hard links, and work in a folder that refuses new files", () => {
	it("write and edit keep a hard link: both names see the new content", async () => {
		const first = join(temp(), "a.txt");
		const second = join(temp(), "b.txt");
		await writeFile(first, "one\n");
		await link(first, second);
		const written = await createWriteTool(temp()).execute("1", { path: "a.txt", content: "two\n" }, undefined);
		expect(resultText(written)).toContain("Written in place (not by rename), so its 2 hard links still share");
		expect(await readFile(second, "utf8")).toBe("two\n");
		const edited = await createEditTool(temp()).execute(
			"2",
			{ path: "b.txt", old_string: "two", new_string: "three" },
			undefined,
		);
		expect(resultText(edited)).toContain("hard links still share the new content");
		expect(await readFile(first, "utf8")).toBe("three\n");
		expect((await stat(first)).ino).toBe((await stat(second)).ino);
	});

	it("falls back to an in-place write when the folder refuses the temp file", async () => {
		const folder = join(temp(), "locked");
		await mkdir(folder);
		await writeFile(join(folder, "f.txt"), "old\n");
		await withImmutableFolder(folder, async () => {
			const written = await createWriteTool(temp()).execute("1", { path: "locked/f.txt", content: "new\n" }, undefined);
			expect(resultText(written)).toContain("Its folder does not allow new files");
			const edited = await createEditTool(temp()).execute(
				"2",
				{ path: "locked/f.txt", old_string: "new", new_string: "newer" },
				undefined,
			);
			expect(resultText(edited)).toContain("overwritten in place");
			// A new file still cannot be created there, and the error says so.
			await expect(
				createWriteTool(temp()).execute("3", { path: "locked/g.txt", content: "x" }, undefined),
			).rejects.toThrow(/permission denied|not permitted/i);
		});
		expect(await readFile(join(folder, "f.txt"), "utf8")).toBe("newer\n");
		expect(await readdir(folder)).toEqual(["f.txt"]);
	});
});
