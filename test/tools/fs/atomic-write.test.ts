import { chmod, lstat, mkdir, readdir, readFile, readlink, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeFileAtomic } from "../../../src/workspace/files/atomic-write.js";
import { tempNameFor } from "../../../src/workspace/files/temp-name.js";
import { createFdConfinedOperations } from "../../../src/workspace/local/files/fd-confined-operations.js";
import { type FileOperations, localFileOperations } from "../../../src/workspace/local/files/operations.js";
import { realPathOf } from "../../../src/workspace/paths/real-path.js";
import { useTempDir } from "../../helpers/temp-dir.js";

const temp = useTempDir();

function failing(overrides: Partial<FileOperations>): FileOperations {
	return { ...localFileOperations, ...overrides };
}

describe("writeFileAtomic", () => {
	it("creates missing parent folders and reports a new file", async () => {
		const path = join(temp(), "a", "b", "c.txt");
		const result = await writeFileAtomic(path, "héllo\n");
		expect(await readFile(path, "utf8")).toBe("héllo\n");
		expect(result).toMatchObject({ targetPath: path, created: true, bytes: 7 });
	});

	it("replaces an existing file and keeps its exact mode", async () => {
		const path = join(temp(), "run.sh");
		await writeFile(path, "old");
		await chmod(path, 0o751);
		const result = await writeFileAtomic(path, "new");
		expect(result.created).toBe(false);
		expect(await readFile(path, "utf8")).toBe("new");
		expect((await stat(path)).mode & 0o7777).toBe(0o751);
	});

	it("writes through a symlink to its target and leaves the link a link", async () => {
		await mkdir(join(temp(), "real"));
		await writeFile(join(temp(), "real", "target.txt"), "old");
		await symlink("real/target.txt", join(temp(), "link.txt"));
		const result = await writeFileAtomic(join(temp(), "link.txt"), "new");
		expect((await lstat(join(temp(), "link.txt"))).isSymbolicLink()).toBe(true);
		expect(await readlink(join(temp(), "link.txt"))).toBe("real/target.txt");
		expect(await readFile(join(temp(), "real", "target.txt"), "utf8")).toBe("new");
		expect(result.targetPath).toBe(join(temp(), "real", "target.txt"));
	});

	it("follows a chain of links, and creates the target of a dangling one", async () => {
		await symlink("second", join(temp(), "first"));
		await symlink("sub/missing.txt", join(temp(), "second"));
		const result = await writeFileAtomic(join(temp(), "first"), "made");
		expect(result.created).toBe(true);
		expect(await readFile(join(temp(), "sub", "missing.txt"), "utf8")).toBe("made");
		expect((await lstat(join(temp(), "first"))).isSymbolicLink()).toBe(true);
		expect((await lstat(join(temp(), "second"))).isSymbolicLink()).toBe(true);
	});

	it("refuses a symlink loop, a directory and a read-only file", async () => {
		await symlink("loop-b", join(temp(), "loop-a"));
		await symlink("loop-a", join(temp(), "loop-b"));
		await expect(writeFileAtomic(join(temp(), "loop-a"), "x")).rejects.toMatchObject({ code: "ELOOP" });
		await expect(writeFileAtomic(temp(), "x")).rejects.toMatchObject({ code: "EISDIR" });
		const readOnly = join(temp(), "ro.txt");
		await writeFile(readOnly, "keep");
		await chmod(readOnly, 0o444);
		await expect(writeFileAtomic(readOnly, "x")).rejects.toMatchObject({ code: "EACCES" });
		expect(await readFile(readOnly, "utf8")).toBe("keep");
	});

	it("leaves the old file whole and no temp file when the rename fails", async () => {
		const path = join(temp(), "keep.txt");
		await writeFile(path, "original");
		const operations = failing({
			rename: async () => {
				throw Object.assign(new Error("EXDEV: cross-device link not permitted"), { code: "EXDEV" });
			},
		});
		await expect(writeFileAtomic(path, "replacement", { operations })).rejects.toMatchObject({ code: "EXDEV" });
		expect(await readFile(path, "utf8")).toBe("original");
		expect(await readdir(temp())).toEqual(["keep.txt"]);
	});

	it("removes a half-written temp file when writing fails midway (disk full)", async () => {
		const path = join(temp(), "keep.txt");
		await writeFile(path, "original");
		const operations = failing({
			writeFile: async (tempPath, data, options) => {
				await localFileOperations.writeFile(tempPath, data.subarray(0, 3), options);
				throw Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" });
			},
		});
		await expect(writeFileAtomic(path, "replacement", { operations })).rejects.toMatchObject({ code: "ENOSPC" });
		expect(await readFile(path, "utf8")).toBe("original");
		expect(await readdir(temp())).toEqual(["keep.txt"]);
	});

	it("never lets a concurrent reader see a partial file", async () => {
		const path = join(temp(), "big.txt");
		const first = "a".repeat(2_000_000);
		const second = "b".repeat(2_000_000);
		await writeFile(path, first);
		let stop = false;
		const seen = new Set<number>();
		const reader = (async () => {
			while (!stop) {
				const content = await readFile(path, "utf8");
				seen.add(content.length);
				expect(content === first || content === second).toBe(true);
			}
		})();
		for (let round = 0; round < 10; round++) await writeFileAtomic(path, round % 2 ? first : second);
		stop = true;
		await reader;
		expect([...seen]).toEqual([2_000_000]);
	});
});

describe("tempNameFor", () => {
	it("gives hidden names, distinct on every call, that fit NAME_MAX however long the file name", () => {
		const names = Array.from({ length: 1000 }, () => tempNameFor("file.txt"));
		expect(new Set(names).size).toBe(1000);
		for (const name of names) expect(name).toMatch(/^\.file\.txt\.[0-9a-z]+\.tmp$/);
		expect(Buffer.byteLength(tempNameFor("x".repeat(255)))).toBeLessThanOrEqual(255);
	});
});

describe("temp names an attacker predicts", () => {
	it("is never redirected by a link planted at the next temp name: the write fails and the link's target stays", async () => {
		const folder = await realPathOf(localFileOperations, temp());
		const outside = join(folder, "outside.txt");
		await writeFile(outside, "untouched\n");
		const project = join(folder, "project");
		await mkdir(project);
		const confined = createFdConfinedOperations(localFileOperations, [project]);
		for (const operations of [localFileOperations, confined ?? localFileOperations]) {
			// The names are predictable within a process (a counter): plant the one the next write will use.
			const seen = tempNameFor("target.txt");
			const match = /^(\.target\.txt\.[0-9a-f]{12})([0-9a-z]+)\.tmp$/.exec(seen);
			if (!match?.[1] || !match[2]) throw new Error(`unexpected temp name ${seen}`);
			const next = `${match[1]}${(Number.parseInt(match[2], 36) + 1).toString(36)}.tmp`;
			await symlink(outside, join(project, next));
			await expect(writeFileAtomic(join(project, "target.txt"), "planted\n", { operations })).rejects.toMatchObject({
				code: "EEXIST",
			});
			expect(await readFile(outside, "utf8")).toBe("untouched\n");
			await expect(lstat(join(project, "target.txt"))).rejects.toMatchObject({ code: "ENOENT" });
		}
	});
});
