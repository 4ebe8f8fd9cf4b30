import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TreeWatch } from "../../src/safety/runs-later/tree-watch.js";
import { useTempDir } from "../helpers/temp-dir.js";

const tempDir = useTempDir();

describe("TreeWatch", () => {
	it("lists a folder .gitignore ignores without entering its subfolders", async () => {
		const root = tempDir();
		await writeFile(join(root, ".gitignore"), "build/\nnode_modules/\n");
		await mkdir(join(root, "node_modules", "pkg", ".git"), { recursive: true });
		await mkdir(join(root, "src", ".git"), { recursive: true });
		const watch = new TreeWatch({ roots: [root] });
		const first = watch.refresh().added.map((entry) => entry.path);
		expect(first).toEqual([join(root, "src", ".git")]);
		await mkdir(join(root, "build", "deep"), { recursive: true });
		await mkdir(join(root, "build", ".git"));
		await writeFile(join(root, "build", "HEAD"), "ref: refs/heads/main\n");
		await mkdir(join(root, "build", "deep", ".git"));
		const later = watch.refresh().added.map((entry) => entry.path);
		expect(later.sort()).toEqual([join(root, "build", ".git"), join(root, "build", "HEAD")]);
		watch.close();
	});
});
