import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { executeToolCalls } from "../../src/engine/execute-tool-calls.js";
import { createLsTool } from "../../src/tools/ls.js";
import { type HasContent, resultText } from "../helpers/results.js";
import { useTempDir } from "../helpers/temp-dir.js";

const temp = useTempDir();

function text(result: HasContent): string {
	return resultText(result);
}

async function tree(root: string, files: string[]): Promise<void> {
	for (const file of files) {
		const path = join(root, file);
		if (file.endsWith("/")) await mkdir(path, { recursive: true });
		else {
			await mkdir(join(path, ".."), { recursive: true });
			await writeFile(path, "");
		}
	}
}

describe("ls tool", () => {
	it("lists sorted by code point, dirs with /, dotfiles included", async () => {
		await tree(temp(), ["b.txt", "a.txt", "B.txt", ".env", "src/", "_private", "é.md", "a-b/"]);
		const result = await createLsTool(temp()).execute("1", {}, undefined);
		expect(text(result)).toBe([".env", "B.txt", "_private", "a-b/", "a.txt", "b.txt", "src/", "é.md"].join("\n"));
		expect(result.details).toMatchObject({ path: ".", entries: 8, truncated: false, truncatedBy: null });
	});

	it("is the same whatever the locale says", async () => {
		await tree(temp(), ["a", "B", "ä", "Z"]);
		vi.stubEnv("LC_ALL", "de_DE.UTF-8");
		try {
			expect(text(await createLsTool(temp()).execute("1", {}, undefined))).toBe("B\nZ\na\nä");
		} finally {
			vi.unstubAllEnvs();
		}
	});

	it("shows symlinks with their target and marks broken ones", async () => {
		await tree(temp(), ["real/", "file.txt"]);
		await symlink("real", join(temp(), "dir-link"));
		await symlink("file.txt", join(temp(), "file-link"));
		await symlink("gone.txt", join(temp(), "broken"));
		const result = await createLsTool(temp()).execute("1", {}, undefined);
		expect(text(result)).toBe(
			["broken -> gone.txt [broken symlink]", "dir-link/ -> real", "file-link -> file.txt", "file.txt", "real/"].join(
				"\n",
			),
		);
		expect(result.details?.brokenSymlinks).toBe(1);
	});

	it("lists recursively, depth-first, down to max_depth, without entering symlinked folders", async () => {
		await tree(temp(), ["a/b/c/deep.txt", "a/top.txt", "z.txt"]);
		await symlink("a", join(temp(), "link"));
		const tool = createLsTool(temp());
		expect(text(await tool.execute("1", { recursive: true }, undefined))).toBe(
			["a/", "a/b/", "a/b/c/", "a/b/c/deep.txt", "a/top.txt", "link/ -> a", "z.txt"].join("\n"),
		);
		expect(text(await tool.execute("1", { recursive: true, max_depth: 2 }, undefined))).toBe(
			["a/", "a/b/", "a/top.txt", "link/ -> a", "z.txt"].join("\n"),
		);
		expect(text(await tool.execute("1", { path: "a", max_depth: 2 }, undefined))).toBe("b/\nb/c/\ntop.txt");
		expect(text(await tool.execute("1", { path: "a", recursive: false, max_depth: 2 }, undefined))).toBe("b/\ntop.txt");
	});

	it("says entries were left out only when they really were", async () => {
		await tree(temp(), ["1", "2", "3"]);
		const tool = createLsTool(temp());
		const exact = await tool.execute("1", { limit: 3 }, undefined);
		expect(text(exact)).toBe("1\n2\n3");
		expect(exact.details?.truncated).toBe(false);
		const cut = await tool.execute("1", { limit: 2 }, undefined);
		expect(text(cut)).toBe(
			"1\n2\n\n[Showing 2 of 3 entries (limit 2). Use limit=4 to see more, or list a subdirectory.]",
		);
		expect(cut.details).toMatchObject({ truncated: true, truncatedBy: "limit", entries: 2 });
		const recursive = await tool.execute("1", { limit: 2, recursive: true }, undefined);
		expect(text(recursive)).toContain("[Showing 2 of more entries (limit 2).");
	});

	it("stops at the byte budget and says so", async () => {
		await tree(
			temp(),
			Array.from({ length: 50 }, (_, index) => `file-${String(index).padStart(2, "0")}-${"x".repeat(40)}`),
		);
		const result = await createLsTool(temp(), { maxBytes: 500 }).execute("1", {}, undefined);
		expect(result.details).toMatchObject({ truncated: true, truncatedBy: "bytes" });
		expect(text(result)).toContain("output budget of 500 bytes reached");
	});

	it("shows an empty directory as such, and paths relative to cwd", async () => {
		await tree(temp(), ["sub/empty/"]);
		const result = await createLsTool(temp()).execute("1", { path: join(temp(), "sub/empty") }, undefined);
		expect(text(result)).toBe("(empty directory)");
		expect(result.details?.path).toBe("sub/empty");
	});

	it("errors for a missing path (with a suggestion) and for a file", async () => {
		await tree(temp(), ["source/", "notes.txt"]);
		const tool = createLsTool(temp());
		await expect(tool.execute("1", { path: "sourse" }, undefined)).rejects.toThrow(
			"Path not found: sourse\nDid you mean: source?",
		);
		await expect(tool.execute("1", { path: "notes.txt" }, undefined)).rejects.toThrow(
			"notes.txt is a file, not a directory. Use read to see its content.",
		);
	});

	it("accepts directory and maxDepth as other agents name them", async () => {
		await tree(temp(), ["sub/a/b.txt"]);
		const { messages } = await executeToolCalls({
			tools: [createLsTool(temp())],
			toolCalls: [
				{ type: "toolCall", id: "a", name: "ls", arguments: { directory: "sub", recursive: "true", maxDepth: 1 } },
			],
		});
		expect(messages[0]?.isError).toBe(false);
		expect(text(messages[0]!)).toBe("a/");
	});
});
