import { lstatSync, mkdirSync, realpathSync, statSync } from "node:fs";
import { dirname } from "node:path";

/**
 * Creates `directory` (mode 0700) if needed and returns its real path when only this user can
 * put files in it or swap it for another: the folder is a directory of this user (not a symlink),
 * open to nobody else, and every folder above it belongs to root or this user and is writable by
 * nobody else unless sticky (as /tmp is, where others cannot rename what is not theirs). A folder
 * above that someone else may write to lets them replace ours between our check and our use.
 * Undefined when any of that fails, or without user ids to compare (Windows).
 */
export function privateFolder(directory: string): string | undefined {
	const uid = process.getuid?.();
	if (uid === undefined) return undefined;
	try {
		mkdirSync(directory, { recursive: true, mode: 0o700 });
		const own = lstatSync(directory);
		if (!own.isDirectory() || own.uid !== uid || (own.mode & 0o077) !== 0) return undefined;
		const real = realpathSync(directory);
		for (let above = dirname(real); ; above = dirname(above)) {
			const stat = statSync(above);
			const owner = stat.uid === 0 || stat.uid === uid;
			const openToOthers = (stat.mode & 0o022) !== 0 && (stat.mode & 0o1000) === 0;
			if (!owner || openToOthers) return undefined;
			if (dirname(above) === above) return real;
		}
	} catch {
		return undefined;
	}
}
