import { lstatSync, readdirSync, readFileSync, type Stats } from "node:fs";
import { dirname, isAbsolute, join, resolve, sep } from "node:path";
import { SandboxUnavailableError } from "./errors.js";
import type { MountPoint } from "./mount-points.js";

/**
 * Entries at each workspace root that stay read-only in the sandbox, whether they exist or not,
 * because something outside the sandbox runs what they say without being asked:
 * - `.git`: config (`core.fsmonitor`, `core.hooksPath`, aliases, filters) and hooks run on the
 *   user's next `git status` or commit; a new `.git` is a new repository with its own config.
 * - `.toolbelt`: project settings (hooks, rules) of the next toolbelt session.
 * - `.claude`: another agent's project settings and hooks.
 * - `.vscode`, `.idea`, `.devcontainer`: editor tasks run on folder open, interpreter and terminal
 *   settings, dev-container lifecycle commands.
 * - `.envrc`: direnv runs it on `cd`.
 * - `.husky`: its scripts are the git hooks of projects that use husky.
 */
export const autoRunEntries: readonly MountPoint[] = [
	{ path: ".git", kind: "directory" },
	{ path: ".toolbelt", kind: "directory" },
	{ path: ".claude", kind: "directory" },
	{ path: ".vscode", kind: "directory" },
	{ path: ".idea", kind: "directory" },
	{ path: ".devcontainer", kind: "directory" },
	{ path: ".envrc", kind: "file" },
	{ path: ".husky", kind: "directory" },
];

/** What must be read-only for one sandboxed call. */
export interface ProtectedPlan {
	/** Paths bound read-only onto themselves (they exist once the mount points are leased). */
	readOnly: string[];
	/** Paths that are missing or empty: placeholders may be needed or in use by another call. */
	mountPoints: MountPoint[];
}

const isInside = (path: string, directory: string) => path === directory || path.startsWith(directory + sep);

// Synchronous on purpose: a few dozen tiny operations per call cost less than as many thread-pool round trips.
function readText(path: string): string {
	try {
		return readFileSync(path, "utf8");
	} catch {
		return "";
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
 * Throws `SandboxUnavailableError` if one of `paths` became a symbolic link since it was planned
 * (between the plan and the mount, another process could have put one there).
 */
export function assertNoSymbolicLinks(paths: readonly string[]): void {
	for (const path of paths) if (lstatOrUndefined(path)?.isSymbolicLink()) throw symbolicLinkError(path);
}

function gitPointer(file: string): string | undefined {
	const text = readText(file);
	const match = /^gitdir:\s*(.+?)\s*$/m.exec(text);
	return match?.[1] ? resolve(dirname(file), match[1]) : undefined;
}

/** `core.hooksPath` of a git config file, if set (the last one wins, as in git). */
export function hooksPathOf(configText: string): string | undefined {
	let section = "";
	let found: string | undefined;
	for (const line of configText.split(/\r?\n/)) {
		const header = /^\s*\[\s*([^\]\s"]+)[^\]]*\]/.exec(line);
		if (header?.[1]) section = header[1].toLowerCase();
		const entry = /^\s*hookspath\s*=\s*(.*?)\s*(?:[#;].*)?$/i.exec(header ? line.slice(header[0].length) : line);
		if (section === "core" && entry?.[1] !== undefined) found = entry[1].replace(/^"(.*)"$/, "$1");
	}
	return found;
}

/** The git directories of a root (its `.git`, or what a `.git` file points to, and the common dir) and its hooks path. */
function gitPathsOf(root: string, homeDir: string): string[] {
	const dotGit = join(root, ".git");
	const info = lstatOrUndefined(dotGit);
	if (!info) return [];
	const paths: string[] = [];
	let gitDir = dotGit;
	if (info.isFile()) {
		const pointed = gitPointer(dotGit);
		if (!pointed) return [];
		paths.push(pointed);
		gitDir = pointed;
	}
	const common = readText(join(gitDir, "commondir")).trim();
	const commonDir = common ? resolve(gitDir, common) : gitDir;
	if (commonDir !== gitDir) paths.push(commonDir);
	const configs = [join(commonDir, "config"), join(gitDir, "config.worktree")].map(readText);
	const hooksPath = configs.map(hooksPathOf).reduce((last, next) => next ?? last, undefined);
	if (hooksPath) {
		const expanded = hooksPath.startsWith("~/") ? join(homeDir, hooksPath.slice(2)) : hooksPath;
		paths.push(isAbsolute(expanded) ? resolve(expanded) : resolve(root, expanded));
	}
	return paths;
}

function isEmpty(path: string, info: Stats): boolean {
	if (!info.isDirectory()) return info.size === 0;
	try {
		return readdirSync(path).length === 0;
	} catch {
		return false;
	}
}

/**
 * Lists what must be read-only at the workspace `roots` for the next call: every auto-run entry,
 * the git directories a `.git` file points to, and `core.hooksPath`, when they lie in a writable
 * path — minus the paths the user named in `writablePaths`. Throws `SandboxUnavailableError` for an
 * entry that is a symbolic link: a mount would land on its target while the link itself stayed
 * replaceable.
 */
export function planProtectedPaths(options: {
	/** The workspace roots (real paths). */
	roots: readonly string[];
	/** The other writable paths (real paths). */
	writablePaths: readonly string[];
	/** The writable paths as the user spelled them (absolute), which may be links. Default: `writablePaths`. */
	namedPaths?: readonly string[];
	/** For a hooks path starting with `~/`. */
	homeDir: string;
}): ProtectedPlan {
	const writable = [...options.roots, ...options.writablePaths];
	const named = new Set([...options.writablePaths, ...(options.namedPaths ?? [])]);
	const candidates = new Map<string, MountPoint["kind"]>();
	for (const root of options.roots) {
		for (const entry of autoRunEntries) candidates.set(join(root, entry.path), entry.kind);
		for (const path of gitPathsOf(root, options.homeDir)) candidates.set(path, "directory");
	}
	const plan: ProtectedPlan = { readOnly: [], mountPoints: [] };
	const paths = [...candidates.keys()]
		.filter((path) => !named.has(path) && writable.some((directory) => isInside(path, directory)))
		.sort();
	for (const path of paths) {
		// A path inside another protected one is covered by its mount.
		if (plan.readOnly.some((outer) => isInside(path, outer))) continue;
		const info = lstatOrUndefined(path);
		if (info?.isSymbolicLink()) throw symbolicLinkError(path);
		if (!info || isEmpty(path, info)) {
			const kind = info ? (info.isDirectory() ? "directory" : "file") : (candidates.get(path) ?? "directory");
			plan.mountPoints.push({ path, kind });
		}
		plan.readOnly.push(path);
	}
	return plan;
}
