// The paths git reads or runs for the repository each workspace root lies in, found through the
// workspace's own files (a remote workspace's repository is read there), for the file tools'
// protected paths: a hooks folder `core.hooksPath` names (`.githooks`), a config file the repo's
// config includes (`../.gitconfig`), a git directory a `.git` file points to; and, read the same
// way, what each root's `.envrc` loads or puts on PATH (direnv runs it at the user's next `cd`).
import { dirname, join, resolve } from "node:path";
import type { FileOperations } from "../../tools/index.js";
import { expandHome, type ProbedFile, probeFiles } from "../../workspace/index.js";
import { envrcLoadedFiles, envrcPathFolders } from "./envrc.js";
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

/** A plan bigger than this is dropped (a config that includes hundreds of files is read step by step). */
const maxPlannedPaths = 512;

/** The folder itself and each folder above it, at most `maxLevelsUp`. */
function foldersUp(root: string): string[] {
	const folders = [root];
	for (let current = root; folders.length < maxLevelsUp && dirname(current) !== current; ) {
		current = dirname(current);
		folders.push(current);
	}
	return folders;
}

/**
 * Fresh answers about the files of one look, asked in as few round trips as the backend allows:
 * `prefetch` asks for many at once, `look` for one (from what was prefetched when it was).
 */
function lookups(files: FileOperations) {
	const known = new Map<string, ProbedFile>();
	const asked: string[] = [];
	const prefetch = async (paths: readonly string[]) => {
		const wanted = [...new Set(paths)].filter((path) => !known.has(path));
		if (wanted.length === 0) return;
		const found = await probeFiles(files, wanted);
		for (const [index, path] of wanted.entries()) known.set(path, found[index] ?? { kind: "missing" });
	};
	const look = async (path: string): Promise<ProbedFile> => {
		asked.push(path);
		if (!known.has(path)) await prefetch([path]);
		return known.get(path) ?? { kind: "missing" };
	};
	return { prefetch, look, asked };
}

/** The repository `root` lies in: its top and whether its `.git` is a file, or the root itself without one. */
async function repositoryOf(
	look: (path: string) => Promise<ProbedFile>,
	root: string,
): Promise<{ top: string; isFile: boolean }> {
	for (const folder of foldersUp(root)) {
		const { kind } = await look(join(folder, ".git"));
		if (kind !== "missing") return { top: folder, isFile: kind !== "directory" };
	}
	return { top: root, isFile: false };
}

/**
 * The paths git reads or runs for the repositories the `roots` lie in: git directories a `.git`
 * file points to, config files (with everything they include, at every level the context allows)
 * and hooks folders. Reads through `files`; a file that cannot be read counts as empty.
 *
 * Every answer is read afresh, so a config changed a moment ago is judged on its new content. To
 * keep that cheap on a remote workspace, the files are asked for together (`probeFiles`: one round
 * trip): those `plan` names (what the previous look of the same caller read, kept up to date here)
 * and every `.git` from the roots up; only a file the previous look did not read (a new include)
 * costs a round trip of its own.
 */
export async function gitNamedPaths(
	roots: readonly string[],
	files: FileOperations,
	context: GitUserContext,
	plan: Set<string> = new Set(),
): Promise<GitNamedPath[]> {
	const { prefetch, look, asked } = lookups(files);
	const first = [...plan];
	first.push(...roots.map((root) => join(root, ".envrc")));
	for (const folder of roots.flatMap(foldersUp)) {
		first.push(join(folder, ".git"));
		// Without a plan (the first look), where a repository's own files would be.
		if (plan.size === 0)
			first.push(...["commondir", "config", "config.worktree"].map((name) => join(folder, ".git", name)));
	}
	await prefetch(first);
	const read = async (path: string) => (await look(path)).content?.toString("utf8");
	const named: GitNamedPath[] = [];
	for (const root of roots) {
		const { top, isFile } = await repositoryOf(look, root);
		const locations = await gitLocations(top, isFile, context, read);
		for (const path of locations.gitDirs) named.push({ path, label: "a git directory (a .git file points to it)" });
		for (const path of locations.configFiles) named.push({ path, label: "a git config file (git reads it)" });
		for (const path of locations.hooksFolders) named.push({ path, label: "a git hooks folder (core.hooksPath)" });
		for (const path of locations.programs) named.push({ path, label: "a program a git config names (git runs it)" });
		for (const path of locations.hookManagerFiles)
			named.push({ path, label: "read by the git hook manager an installed hook starts (lefthook, pre-commit)" });
		for (const path of locations.hookManagerFolders)
			named.push({ path, label: "scripts the git hook manager an installed hook starts runs (lefthook, husky)" });
		const envrc = await read(join(root, ".envrc"));
		if (envrc === undefined) continue;
		for (const file of envrcLoadedFiles(envrc))
			named.push({
				path: resolve(root, expandHome(file, context.homeDir)),
				label: "a file the .envrc loads (direnv runs it at the next cd)",
			});
		for (const folder of envrcPathFolders(envrc))
			named.push({
				path: resolve(root, folder),
				label: "a folder the .envrc puts on PATH (its files run in place of the programs the user types)",
			});
	}
	plan.clear();
	if (asked.length <= maxPlannedPaths) for (const path of asked) plan.add(path);
	return named;
}
