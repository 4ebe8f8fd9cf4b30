import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createFindTool } from "../../../src/tools/find.js";
import { createGrepTool } from "../../../src/tools/grep.js";
import type { GrepLine, SearchOperations } from "../../../src/workspace/search/types.js";
import { useTempDir } from "../../helpers/temp-dir.js";
import { textOf, writeTree } from "./fixtures.js";

describe("search backend selection", () => {
	const dir = useTempDir();

	it("falls back to the walker when the ripgrep binary is missing, and says why in details", async () => {
		await writeTree(dir(), { "a.txt": "hit\n", ".gitignore": "b.txt\n", "b.txt": "hit\n" });
		const rgPath = join(dir(), "no-such-rg");
		const grep = await createGrepTool(dir(), { rgPath }).execute("call", { pattern: "hit" }, undefined);
		expect(textOf(grep)).toBe("a.txt:1: hit");
		expect(grep.details?.backend).toBe("walker");
		expect(grep.details?.fallbackReason).toMatch(/ripgrep failed to start .*ENOENT/);
		const find = await createFindTool(dir(), { rgPath }).execute("call", { pattern: "*.txt" }, undefined);
		expect(textOf(find)).toBe("a.txt");
		expect(find.details).toMatchObject({ backend: "walker", fallbackReason: expect.stringMatching(/ENOENT/) });
	});

	it("falls back when the binary cannot be executed", async () => {
		await writeTree(dir(), { "a.txt": "hit\n" });
		const rgPath = join(dir(), "rg");
		await writeFile(rgPath, "not a program");
		await chmod(rgPath, 0o644);
		const result = await createGrepTool(dir(), { rgPath }).execute("call", { pattern: "hit" }, undefined);
		expect(result.details).toMatchObject({ backend: "walker", fallbackReason: expect.stringMatching(/EACCES/) });
		expect(textOf(result)).toBe("a.txt:1: hit");
	});

	it("uses the bundled ripgrep by default", async () => {
		await writeTree(dir(), { "a.txt": "hit\n" });
		const result = await createGrepTool(dir()).execute("call", { pattern: "hit" }, undefined);
		expect(result.details?.backend).toBe("ripgrep");
		expect(result.details?.fallbackReason).toBeUndefined();
	});

	it("reports a forced ripgrep that cannot run as an error", async () => {
		await writeTree(dir(), { "a.txt": "hit\n" });
		const tool = createGrepTool(dir(), { rgPath: join(dir(), "missing"), backend: "ripgrep" });
		await expect(tool.execute("call", { pattern: "hit" }, undefined)).rejects.toThrow(
			/^Cannot search: ripgrep failed to start/,
		);
	});

	it("runs injected operations instead of the local ones", async () => {
		const seen: unknown[] = [];
		const lines: GrepLine[] = [
			{ kind: "match", path: "remote/file.ts", lineNumber: 7, text: "remote hit", matchStart: 7 },
		];
		const operations: SearchOperations = {
			stat: async (path) => {
				seen.push(path);
				return { isDirectory: true };
			},
			grep: async (request) => {
				seen.push(request);
				return {
					backend: "ripgrep",
					items: (async function* () {
						yield lines;
					})(),
				};
			},
			listFiles: async () => ({
				backend: "walker",
				items: (async function* () {
					yield ["z.ts", "a.ts"];
				})(),
			}),
		};
		const grep = await createGrepTool("/workspace", { operations }).execute(
			"call",
			{ pattern: "-x", include: "*.ts" },
			undefined,
		);
		expect(textOf(grep)).toBe("remote/file.ts:7: remote hit");
		expect(seen[0]).toBe("/workspace");
		expect(seen[1]).toMatchObject({ root: "/workspace", pattern: "-x", include: "*.ts", caseSensitive: true });
		const find = await createFindTool("/workspace", { operations }).execute("call", { pattern: "*.ts" }, undefined);
		expect(textOf(find)).toBe("a.ts\nz.ts");
	});
});
