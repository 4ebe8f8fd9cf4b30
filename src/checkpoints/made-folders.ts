import * as nativePath from "node:path";
import type { CheckpointFileAccess } from "./file-access.js";

function pathsOf(access: CheckpointFileAccess): typeof nativePath.posix {
	return access.posixPaths ? nativePath.posix : nativePath;
}

/** True when `path` is strictly inside `root` (lexically: both are plain absolute paths). */
function strictlyInside(paths: typeof nativePath.posix, root: string, path: string): boolean {
	return path !== root && path.startsWith(root.endsWith(paths.sep) ? root : root + paths.sep);
}

/**
 * The most folders one file's checkpoint records. Each is kept by its absolute path, so a write
 * two thousand folders deep (as deep as PATH_MAX allows) cost 4 MB of log per call: a program of
 * such writes grew the log past what can be read. Deeper ones are left, empty, by undo.
 */
const MAX_RECORDED_FOLDERS = 64;

/**
 * The folders above `path` that are missing now, deepest first, up to (not including) the first
 * one that is there and never at or above `root`: what a write of `path` would have to make, at
 * most the deepest `MAX_RECORDED_FOLDERS`. Empty when its folder is there (the usual case: one look).
 */
export async function missingFolders(
	access: CheckpointFileAccess,
	path: string,
	root: string | undefined,
): Promise<string[]> {
	if (root === undefined) return [];
	const paths = pathsOf(access);
	const missing: string[] = [];
	for (let folder = paths.dirname(path); strictlyInside(paths, root, folder); folder = paths.dirname(folder)) {
		if (missing.length === MAX_RECORDED_FOLDERS || (await access.entry(folder)) !== undefined) break;
		missing.push(folder);
	}
	return missing;
}

/** Of the folders that were missing before a call, those it made (a folder is there now). */
export async function madeBy(access: CheckpointFileAccess, missing: readonly string[]): Promise<string[]> {
	const made: string[] = [];
	for (const folder of missing) {
		const entry = await access.entry(folder);
		if (entry?.kind === "other") made.push(folder);
	}
	return made;
}

/**
 * Removes the folders a checkpoint says its calls made, deepest first, each only when it is
 * empty now (a folder something else put a file in stays), inside `root`, judged by `guard` as a
 * write there, and through `access` (the workspace's confined operations). Returns those removed.
 */
export async function removeMadeFolders(
	access: CheckpointFileAccess,
	folders: Iterable<string>,
	root: string | undefined,
	guard: ((path: string) => Promise<string | undefined>) | undefined,
): Promise<string[]> {
	if (root === undefined || !access.removeFolder) return [];
	const paths = pathsOf(access);
	const ordered = [...new Set(folders)].sort((a, b) => b.length - a.length);
	const removed: string[] = [];
	for (const folder of ordered) {
		if (!paths.isAbsolute(folder) || paths.resolve(folder) !== folder || !strictlyInside(paths, root, folder)) continue;
		if ((await guard?.(folder)) !== undefined) continue;
		if (await access.removeFolder(folder)) removed.push(folder);
	}
	return removed;
}
