import { lstatSync, readdirSync, readFileSync, realpathSync, type Stats } from "node:fs";
import { basename, dirname, join, resolve, sep } from "node:path";
import { expandHome } from "../../workspace/index.js";
import { type AutoRunEntry, autoRunEntries } from "../runs-later/auto-run-entries.js";
import { envrcLoadedFiles, envrcPathFolders } from "../runs-later/envrc.js";
import { type GitLocations, gitLocationsSync, userConfigFiles } from "../runs-later/git-locations.js";
import type { NestedEntry } from "../runs-later/tree-watch.js";
import { SandboxUnavailableError } from "./errors.js";
import type { MountPoint } from "./mount-points.js";

export { hooksPathOf } from "../runs-later/git-config.js";
/** @deprecated Import `autoRunEntries` from the safety index: the one list lives in `runs-later/auto-run-entries.ts`. */
export { type AutoRunEntry, autoRunEntries };

/** What must be read-only for one sandboxed call. */
export interface ProtectedPlan {
	/** Paths bound read-only onto themselves (they exist once the mount points are leased). */
	readOnly: string[];
	/** Paths that are missing or empty: placeholders may be needed or in use by another call. */
	mountPoints: MountPoint[];
}

const isInside = (path: string, directory: string) => path === directory || path.startsWith(directory + sep);

// Synchronous on purpose: a few dozen tiny operations per call cost less than as many thread-pool round trips.
function readText(path: string): string | undefined {
	try {
		return readFileSync(path, "utf8");
	} catch {
		return undefined;
	}
}

function lstatOrUndefined(path: string): Stats | undefined {
	try {
		return lstatSync(path);
	} catch {
		return undefined;
	}
}

function symbolicLinkError(path: string): SandboxUnavailableError {
	return new SandboxUnavailableError(
		`The sandbox cannot keep ${path} read-only: it is a symbolic link, and a command could replace the link itself. ` +
			"Replace the link by what it points to, or name the path in sandbox.writablePaths to let commands change it. The command was not run.",
	);
}

/**
 * Throws `SandboxUnavailableError` if one of `paths`, or a folder on the way to it, is a symbolic
 * link (another process could have put one there since the plan). A mount follows a link on the
 * way and lands on its target, while the link itself, in a writable folder, could be pointed
 * elsewhere by a command (`tools -> t2` made `tools -> evil`) and git on the host follow it there.
 * The roots are real paths, so a link above them is the user's own change of the last moments.
 */
export function assertNoSymbolicLinks(paths: readonly string[]): void {
	const checked = new Set<string>();
	for (const path of paths) {
		for (let current = path; !checked.has(current); current = dirname(current)) {
			checked.add(current);
			if (lstatOrUndefined(current)?.isSymbolicLink()) throw symbolicLinkError(current);
			if (dirname(current) === current) break;
		}
	}
}

/**
 * Throws `SandboxUnavailableError` when a writable path the user named leads outside the roots
 * through a link inside a writable folder: a command could have made that link (or, before the
 * folders on the way were pinned, renamed them and put one there), and the bind would follow it
 * and make the folder it leads to writable — as root, `/etc`. A link that stays within the roots
 * (`.vscode -> config/vscode`) gives nothing a command could not write anyway.
 */
function assertNamedPathsUnlinked(
	namedPaths: readonly string[],
	roots: readonly string[],
	writable: readonly string[],
): void {
	for (const named of namedPaths) {
		const real = realPathOrUndefined(named);
		if (real !== undefined && roots.some((root) => isInside(real, root))) continue;
		for (let current = named; dirname(current) !== current; current = dirname(current)) {
			const inWritable = writable.some((directory) => current !== directory && isInside(current, directory));
			if (!inWritable || !lstatOrUndefined(current)?.isSymbolicLink()) continue;
			throw new SandboxUnavailableError(
				`The sandbox cannot make ${named} writable: ${current} is a symbolic link inside a writable folder, which a command could have made to reach a folder outside (${real ?? "a missing one"}). ` +
					"Name the folder the link leads to in sandbox.writablePaths instead (after checking it is the one you meant), or replace the link by a folder. The command was not run.",
			);
		}
	}
}

function realPathOrUndefined(path: string): string | undefined {
	try {
		return realpathSync(path);
	} catch {
		return undefined;
	}
}

/** The folder holding `.git` for `folder`: itself, or the nearest parent with one (the repository a root lies in). */
function repositoryTop(folder: string): { top: string; dotGit?: Stats } {
	for (let current = folder; ; current = dirname(current)) {
		const dotGit = lstatOrUndefined(join(current, ".git"));
		if (dotGit) return { top: current, dotGit };
		if (dirname(current) === current) return { top: folder };
	}
}

/** The git locations of the repository at `top` (`dotGit` its `.git`, if any), read from this machine's disk. */
function locationsOf(top: string, dotGitIsFile: boolean, homeDir: string): GitLocations {
	return gitLocationsSync(top, dotGitIsFile, { homeDir, env: process.env }, readText);
}

/** Every path git reads or runs for the repository at `top`, with what to make when it is missing. */
function gitCandidates(top: string, dotGitIsFile: boolean, homeDir: string): [string, MountPoint["kind"]][] {
	const locations = locationsOf(top, dotGitIsFile, homeDir);
	return [
		...locations.gitDirs.map((path) => [path, "directory"] as [string, MountPoint["kind"]]),
		...locations.configFiles.map((path) => [path, "file"] as [string, MountPoint["kind"]]),
		...locations.hooksFolders.map((path) => [path, "directory"] as [string, MountPoint["kind"]]),
		...locations.programs.map((path) => [path, "file"] as [string, MountPoint["kind"]]),
		...locations.hookManagerFiles.map((path) => [path, "file"] as [string, MountPoint["kind"]]),
		...locations.hookManagerFolders.map((path) => [path, "directory"] as [string, MountPoint["kind"]]),
	];
}

/**
 * The mount point for a missing path: the path itself when its folder exists, else the highest
 * missing folder on the way (a command could make the folders and then the path).
 */
function mountPointFor(path: string, kind: MountPoint["kind"], writable: readonly string[]): MountPoint {
	let point: MountPoint = { path, kind };
	for (let parent = dirname(path); !lstatOrUndefined(parent); parent = dirname(parent)) {
		if (!writable.some((directory) => isInside(parent, directory)) || dirname(parent) === parent) break;
		point = { path: parent, kind: "directory" };
	}
	return point;
}

function isEmpty(path: string, info: Stats): boolean {
	if (!info.isDirectory()) return info.size === 0;
	try {
		return readdirSync(path).length === 0;
	} catch {
		return false;
	}
}

/** Options of `planProtectedPaths`. */
export interface ProtectedPlanOptions {
	/** The workspace roots (real paths). */
	roots: readonly string[];
	/** The other writable paths (real paths). */
	writablePaths: readonly string[];
	/** The writable paths as the user spelled them (absolute), which may be links. Default: `writablePaths`. */
	namedPaths?: readonly string[];
	/** The user's home: `~/.gitconfig`, `~/` in git paths. */
	homeDir: string;
	/** Nested entries that run later, found below the roots (see `TreeWatch`). Default: none. */
	nested?: readonly NestedEntry[];
}

/** Every path that runs later, by kind: the roots' auto-run entries, nested ones, and what git reads for each repository. */
function candidatesOf(options: ProtectedPlanOptions): Map<string, MountPoint["kind"]> {
	const candidates = new Map<string, MountPoint["kind"]>();
	const add = ([path, kind]: [string, MountPoint["kind"]]) => {
		if (!candidates.has(path)) candidates.set(path, kind);
	};
	for (const root of options.roots) {
		for (const entry of autoRunEntries) add([join(root, entry.path), entry.kind]);
		// What the root's allowed .envrc loads runs at the next cd too, unchecked by direnv, and what
		// it puts on PATH runs in place of the programs the user types.
		const envrc = readText(join(root, ".envrc")) ?? "";
		for (const file of envrcLoadedFiles(envrc)) add([resolve(root, expandHome(file, options.homeDir)), "file"]);
		for (const folder of envrcPathFolders(envrc)) add([resolve(root, folder), "directory"]);
		// A root without its own .git may lie in a repository whose config names paths inside it.
		const { top, dotGit } = repositoryTop(root);
		gitCandidates(top, dotGit?.isFile() ?? false, options.homeDir).forEach(add);
	}
	for (const file of userConfigFiles({ homeDir: options.homeDir, env: process.env })) add([file, "file"]);
	for (const entry of options.nested ?? []) {
		// A folder holding HEAD is kept whole, as a .git folder is (config, hooks): git takes it for a
		// repository once it has objects/ and refs/, and a committed bare repository often lacks
		// refs/ (git keeps no empty folder), which a command would only have to make, with a config.
		add(basename(entry.path) === "HEAD" ? [dirname(entry.path), "directory"] : [entry.path, entry.kind]);
		if (entry.path.endsWith(`${sep}.git`))
			gitCandidates(dirname(entry.path), entry.kind === "file", options.homeDir).forEach(add);
	}
	return candidates;
}

/**
 * Lists what must be read-only for the next call, when it lies in a writable path: every auto-run
 * entry of each root and what its `.envrc` loads, the nested entries found below them, and for each repository (the roots', a
 * nested one) its git directories, every config file git reads with everything those include, and
 * every hooks folder and program (by a path) a config of any level names — minus the paths the user named in
 * `writablePaths`. A missing path gets a mount point (at its highest missing folder). Throws
 * `SandboxUnavailableError` for an entry that is a symbolic link: a mount would land on its target
 * while the link itself stayed replaceable.
 */
export function planProtectedPaths(options: ProtectedPlanOptions): ProtectedPlan {
	const writable = [...options.roots, ...options.writablePaths];
	assertNamedPathsUnlinked(options.namedPaths ?? [], options.roots, writable);
	const named = new Set([...options.writablePaths, ...(options.namedPaths ?? [])]);
	const candidates = candidatesOf(options);
	const plan: ProtectedPlan = { readOnly: [], mountPoints: [] };
	const points = [...candidates]
		.filter(([path]) => !named.has(path) && writable.some((directory) => isInside(path, directory)))
		.map(([path, kind]) => (lstatOrUndefined(path) ? { path, kind } : mountPointFor(path, kind, writable)))
		.sort((left, right) => (left.path < right.path ? -1 : left.path > right.path ? 1 : 0));
	for (const { path, kind } of points) {
		// A path inside another protected one is covered by its mount.
		if (plan.readOnly.some((outer) => isInside(path, outer))) continue;
		const info = lstatOrUndefined(path);
		if (info?.isSymbolicLink()) throw symbolicLinkError(path);
		if (!info || isEmpty(path, info)) {
			plan.mountPoints.push({ path, kind: info ? (info.isDirectory() ? "directory" : "file") : kind });
		}
		plan.readOnly.push(path);
	}
	return plan;
}
