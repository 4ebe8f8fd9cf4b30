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

describe("TreeWatch in a virtual environment", () => {
	it("enters an ignored .venv only down to site-packages, and reports its startup files, a root's sitecustomize.py and nested editor settings", async () => {
		const root = tempDir();
		await writeFile(join(root, ".gitignore"), ".venv/\n");
		const sitePackages = join(root, ".venv", "lib", "python3.12", "site-packages");
		await mkdir(join(sitePackages, "pkg", "sub"), { recursive: true });
		await writeFile(join(root, ".venv", "pyvenv.cfg"), "home = /usr/bin\n");
		await writeFile(join(sitePackages, "pkg", "sub", "x.pth"), "import os\n");
		await writeFile(join(sitePackages, "pkg", "module.py"), "\n");
		const watch = new TreeWatch({ roots: [root] });
		expect(watch.refresh().added).toEqual([]);
		await writeFile(join(sitePackages, "planted.pth"), "import os\n");
		await writeFile(join(root, "sitecustomize.py"), "\n");
		await mkdir(join(root, "pkg", ".vscode"), { recursive: true });
		const later = watch.refresh().added.map((entry) => entry.path);
		expect(later.sort()).toEqual(
			[join(sitePackages, "planted.pth"), join(root, "pkg", ".vscode"), join(root, "sitecustomize.py")].sort(),
		);
		watch.close();
	});
});
