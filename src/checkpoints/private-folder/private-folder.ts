import { lstatSync, mkdirSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, join, resolve, sep } from "node:path";

/** What `inspectPrivateFolder` found: the folder's real path, or why it may not be used. */
export type PrivateFolderCheck = { realPath: string; refused?: undefined } | { realPath?: undefined; refused: string };

/** Options of `inspectPrivateFolder`. */
export interface PrivateFolderOptions {
	/**
	 * Real paths of folders the private folder must not be inside (workspaces: a sandboxed command
	 * or a file tool may write there, so it could plant or rewrite what the folder holds). Default: none.
	 */
	notInside?: readonly string[];
}

/**
 * Creates `directory` (mode 0700) if needed and checks that only this user can put files in it
 * or swap it for another: the folder is a directory of this user (not a symlink), open to nobody
 * else, and every folder above it belongs to root or this user and is writable by nobody else
 * unless sticky (as /tmp is, where others cannot rename what is not theirs). A folder above that
 * someone else may write to lets them replace ours between our check and our use. A folder
 * another user made first is refused, never used or taken over. Refused too without user ids to
 * compare (Windows), and inside any folder of `options.notInside`.
 */
export function inspectPrivateFolder(directory: string, options: PrivateFolderOptions = {}): PrivateFolderCheck {
	const uid = process.getuid?.();
	if (uid === undefined) return { refused: "this system has no user ids to check who owns it" };
	try {
		// Judged before anything is made: a refused folder must not be created inside a workspace.
		const early = insideOf(realPathOfNearest(resolve(directory)), options.notInside);
		if (early !== undefined) return insideRefusal(directory, early);
		mkdirSync(directory, { recursive: true, mode: 0o700 });
		const own = lstatSync(directory);
		if (own.isSymbolicLink()) return { refused: `${directory} is a symbolic link, not a folder of its own` };
		if (!own.isDirectory()) return { refused: `${directory} is not a folder` };
		if (own.uid !== uid) return { refused: `${directory} belongs to another user (uid ${own.uid}), not to uid ${uid}` };
		if ((own.mode & 0o077) !== 0)
			return { refused: `${directory} is open to other users (mode ${(own.mode & 0o777).toString(8)}, not 700)` };
		const realPath = realpathSync(directory);
		const workspace = insideOf(realPath, options.notInside);
		if (workspace !== undefined) return insideRefusal(directory, workspace);
		for (let above = dirname(realPath); ; above = dirname(above)) {
			const stat = statSync(above);
			if (stat.uid !== 0 && stat.uid !== uid)
				return { refused: `${above}, above it, belongs to another user (uid ${stat.uid})` };
			if ((stat.mode & 0o022) !== 0 && (stat.mode & 0o1000) === 0)
				return { refused: `${above}, above it, is writable by other users and not sticky` };
			if (dirname(above) === above) return { realPath };
		}
	} catch (error) {
		return { refused: `it could not be made or checked (${error instanceof Error ? error.message : String(error)})` };
	}
}

/** `inspectPrivateFolder`'s real path, or undefined when the folder may not be used. */
export function privateFolder(directory: string): string | undefined {
	return inspectPrivateFolder(directory).realPath;
}

function insideRefusal(directory: string, workspace: string): PrivateFolderCheck {
	return { refused: `${directory} is inside the workspace ${workspace}, where the agent's tools and commands write` };
}

/** The folder of `folders` that `realPath` is (or is inside), if any. */
function insideOf(realPath: string, folders: readonly string[] = []): string | undefined {
	return folders.find(
		(folder) => realPath === folder || realPath.startsWith(folder.endsWith(sep) ? folder : folder + sep),
	);
}

/** The real path of the deepest existing folder on `path`'s way, with the names below it added. */
function realPathOfNearest(path: string): string {
	const missing: string[] = [];
	for (let current = path; ; current = dirname(current)) {
		try {
			return join(realpathSync(current), ...missing);
		} catch {
			if (dirname(current) === current) return path;
			missing.unshift(basename(current));
		}
	}
}
