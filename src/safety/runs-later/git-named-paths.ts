// The paths git reads or runs for the repository each workspace root lies in, found through the
// workspace's own files (a remote workspace's repository is read there), for the file tools'
// protected paths: a hooks folder `core.hooksPath` names (`.githooks`), a config file the repo's
// config includes (`../.gitconfig`), a git directory a `.git` file points to.
import { dirname, join } from "node:path";
import type { FileOperations } from "../../tools/index.js";
import { type GitUserContext, gitLocations } from "./git-locations.js";

/** A path git reads or runs, and what it is (for the model: why a write there is refused). */
export interface GitNamedPath {
	/** Absolute path on the workspace's disk. */
	path: string;
	/** What it is, e.g. `a git hooks folder (core.hooksPath)`. */
	label: string;
}

/** How far up from a root a repository is looked for. */
const maxLevelsUp = 64;

async function dotGitOf(files: FileOperations, folder: string): Promise<"directory" | "file" | undefined> {
	try {
		const info = await files.lstat(join(folder, ".git"));
		return info.kind === "directory" ? "directory" : "file";
	} catch {
		return undefined;
	}
}

/** The repository `root` lies in: its top and whether its `.git` is a file, or the root itself without one. */
async function repositoryOf(files: FileOperations, root: string): Promise<{ top: string; isFile: boolean }> {
	let current = root;
	for (let level = 0; level < maxLevelsUp; level++) {
		const kind = await dotGitOf(files, current);
		if (kind) return { top: current, isFile: kind === "file" };
		if (dirname(current) === current) break;
		current = dirname(current);
	}
	return { top: root, isFile: false };
}

/**
 * The paths git reads or runs for the repositories the `roots` lie in: git directories a `.git`
 * file points to, config files (with everything they include, at every level the context allows)
 * and hooks folders. Reads through `files`; a file that cannot be read counts as empty.
 */
export async function gitNamedPaths(
	roots: readonly string[],
	files: FileOperations,
	context: GitUserContext,
): Promise<GitNamedPath[]> {
	const read = (path: string) =>
		files.readFile(path).then(
			(content) => content.toString("utf8"),
			() => undefined,
		);
	const named: GitNamedPath[] = [];
	for (const root of roots) {
		const { top, isFile } = await repositoryOf(files, root);
		const locations = await gitLocations(top, isFile, context, read);
		for (const path of locations.gitDirs) named.push({ path, label: "a git directory (a .git file points to it)" });
		for (const path of locations.configFiles) named.push({ path, label: "a git config file (git reads it)" });
		for (const path of locations.hooksFolders) named.push({ path, label: "a git hooks folder (core.hooksPath)" });
	}
	return named;
}
