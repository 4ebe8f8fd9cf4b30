// The nested-repository guard renames a `.git` a sandboxed command made out of the way once the
// call is over. A command left running in the background can swap the folder holding it for a
// link to a folder outside between the guard's look and its rename: the rename must then never
// reach the outside repository (it is done in the folder opened and verified inside the roots).
// The swap is made between the two steps here, so the test does not depend on winning a race.
import { lstat, mkdir, readdir, realpath, rename, rm, symlink } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { NestedGuard } from "../../src/safety/runs-later/nested-guard.js";
import type { NestedEntry } from "../../src/safety/runs-later/tree-watch.js";
import { useTempDir } from "../helpers/temp-dir.js";

const tempDir = useTempDir();

/** The guard's rename step alone, as `sweep` runs it on what its look found. */
const quarantine = (guard: NestedGuard, entries: NestedEntry[]) =>
	(guard as unknown as { quarantine(entries: readonly NestedEntry[]): string[] }).quarantine(entries);

describe("the nested guard's rename", () => {
	it("never renames a repository outside the roots through a folder swapped for a link", async () => {
		const root = await realpath(tempDir());
		const outside = join(root, "..", `${root.split("/").pop()}-outside`);
		await mkdir(join(outside, ".git"), { recursive: true });
		const workspace = join(root, "workspace");
		await mkdir(join(workspace, "sub", ".git"), { recursive: true });
		const guard = new NestedGuard({ roots: [workspace] });
		try {
			const found = await lstat(join(workspace, "sub", ".git"));
			const entry: NestedEntry = {
				path: join(workspace, "sub", ".git"),
				kind: "directory",
				ino: found.ino,
				ctimeMs: found.ctimeMs,
			};
			// Between the look and the rename: `sub` becomes a link to the outside folder.
			await rename(join(workspace, "sub"), join(root, "moved-sub"));
			await symlink(outside, join(workspace, "sub"));
			const [notice] = quarantine(guard, [entry]);
			expect(await readdir(outside)).toEqual([".git"]);
			expect(notice).toContain("could not rename it out of the way");
			// An entry in place is still renamed away.
			await mkdir(join(workspace, "other", ".git"), { recursive: true });
			const other = await lstat(join(workspace, "other", ".git"));
			quarantine(guard, [{ path: join(workspace, "other", ".git"), kind: "directory", ino: other.ino, ctimeMs: 0 }]);
			expect((await readdir(join(workspace, "other")))[0]).toMatch(/^\.git\.quarantined-/);
		} finally {
			guard.close();
			await rm(outside, { recursive: true, force: true });
		}
	});
});
