import { mkdir, realpath, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { FileOperations } from "../../../src/workspace/files/contract.js";
import { localFileOperations } from "../../../src/workspace/local/files/operations.js";
import { createLocalWorkspace } from "../../../src/workspace/workspace.js";
import { useTempDir } from "../../helpers/temp-dir.js";

const temp = useTempDir();

/** The local disk, recording every path a metadata call looked at (`stat`, `lstat`, `statIfExists`). */
function countingOperations(): { files: FileOperations; looks: string[] } {
	const looks: string[] = [];
	const files: FileOperations = {
		...localFileOperations,
		stat: (path) => {
			looks.push(path);
			return localFileOperations.stat(path);
		},
		lstat: (path) => {
			looks.push(path);
			return localFileOperations.lstat(path);
		},
		statIfExists: (path, options) => {
			looks.push(path);
			return localFileOperations.statIfExists?.(path, options) ?? Promise.resolve(undefined);
		},
	};
	return { files, looks };
}

describe("a workspace's resolve looks at a name once", () => {
	it("a new file: one look-up of its name, and its real path from its folder's", async () => {
		await mkdir(join(temp(), "w"));
		const { files, looks } = countingOperations();
		const workspace = createLocalWorkspace(temp(), { files });
		const resolved = await workspace.resolve("w/new.txt");
		expect(resolved.info).toBeUndefined();
		expect(resolved.realPath).toBe(join(await realpath(temp()), "w", "new.txt"));
		expect(looks.filter((path) => path === join(temp(), "w", "new.txt"))).toHaveLength(1);
	});

	it("an existing file: one look-up, the same facts as before", async () => {
		await writeFile(join(temp(), "a.txt"), "abc");
		const { files, looks } = countingOperations();
		const resolved = await createLocalWorkspace(temp(), { files }).resolve("a.txt");
		expect(resolved).toMatchObject({ match: "exact", info: { kind: "file", size: 3 } });
		expect(looks).toEqual([join(temp(), "a.txt")]);
	});

	it("a link to a file: followed (its target's facts and real path)", async () => {
		await mkdir(join(temp(), "real"));
		await writeFile(join(temp(), "real", "target.txt"), "12345");
		await symlink(join(temp(), "real", "target.txt"), join(temp(), "link.txt"));
		const resolved = await createLocalWorkspace(temp()).resolve("link.txt");
		expect(resolved).toMatchObject({ absolutePath: join(temp(), "link.txt"), match: "exact" });
		expect(resolved.info).toMatchObject({ kind: "file", size: 5 });
		expect(resolved.realPath).toBe(join(await realpath(temp()), "real", "target.txt"));
	});

	it("a dangling link: nothing there, and the real path is where a write through it would create the file", async () => {
		await mkdir(join(temp(), "elsewhere"));
		await symlink(join(temp(), "elsewhere", "made.txt"), join(temp(), "dangling.txt"));
		const resolved = await createLocalWorkspace(temp()).resolve("dangling.txt");
		expect(resolved.info).toBeUndefined();
		expect(resolved.match).toBeUndefined();
		expect(resolved.realPath).toBe(join(await realpath(temp()), "elsewhere", "made.txt"));
	});

	it("a link loop: refused with what to do", async () => {
		await symlink(join(temp(), "loop-b"), join(temp(), "loop-a"));
		await symlink(join(temp(), "loop-a"), join(temp(), "loop-b"));
		await expect(createLocalWorkspace(temp()).resolve("loop-a")).rejects.toThrow(/symlink loop/);
	});
});
