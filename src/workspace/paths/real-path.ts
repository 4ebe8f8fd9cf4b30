import { basename, dirname, resolve, sep } from "node:path";
import { type FileInfo, type FileOperations, infoIfExists } from "../files/contract.js";
import { isNormalAbsolute } from "./paths.js";

/** Most links followed before a chain counts as a loop (the kernel's own limit is 40). */
const MAX_HOPS = 64;

/** Options of `realPathOf`. */
export interface RealPathOptions {
	/** What the name at `path` itself is (`lstat`; null for nothing there), when the caller has just looked. */
	own?: FileInfo | null;
	/**
	 * Look-ups shared by the calls of one batch (`TargetContext.lookups`): a folder's real path is
	 * then asked once per batch, and an existing name's real path is its folder's plus its name.
	 * Default: none (every real path is asked for).
	 */
	lookups?: Map<string, unknown>;
}

/**
 * The real path of `path`, also for a file that does not exist yet: the realpath of its deepest
 * existing ancestor plus the rest. A dangling symlink is followed to where it points, since
 * writing through it would create its target; a link loop yields the path as written. This is
 * the one home of that rule: confinement, permission rules, stale-write records and the file
 * mutation queue's key all use it (through `Workspace.realPath`).
 */
export async function realPathOf(files: FileOperations, path: string, options: RealPathOptions = {}): Promise<string> {
	// Mostly a path the workspace resolved already: normalizing it again would give it back as it is.
	let current = isNormalAbsolute(path) ? path : resolve(path);
	const rest: string[] = [];
	const { lookups } = options;
	// What `current` itself is, when the caller has just looked.
	let known = options.own;
	// `lstat` of the path itself tells a missing file from a dangling link; above it, `realpath` is
	// tried first and `lstat` only where it fails.
	for (let hops = 0; hops < MAX_HOPS; hops++) {
		if (rest.length > 0) {
			// A folder above a missing file is nearly always there: its realpath answers at once, without
			// an lstat first. Only when that fails is it looked at (missing too, or a dangling link to follow).
			// Awaited in a `try` rather than through `.catch`: no closure and extra promise per call.
			// Known already in a batch (all but its first call): no await.
			const folderReal = knownRealPath(current, lookups);
			if (folderReal !== undefined) return below(folderReal, rest);
			try {
				return below(await folderRealPath(files, current, lookups), rest);
			} catch {}
		}
		let info = known ?? undefined;
		if (known === undefined) {
			try {
				info = await infoIfExists(files, current, NO_FOLLOW);
			} catch {}
		}
		known = undefined;
		if (!info) {
			const parent = dirname(current);
			if (parent === current) return resolve(path);
			rest.push(basename(current));
			current = parent;
			continue;
		}
		try {
			const real = await existingRealPath(files, current, info, lookups);
			return rest.length === 0 ? real : below(real, rest);
		} catch (error) {
			if (info.kind !== "symlink") throw error;
			// A dangling link: follow it to where it points.
			current = resolve(dirname(current), await files.readlink(current));
		}
	}
	return resolve(path);
}

/** The options of a look-up of the name itself (one object for every call). */
const NO_FOLLOW = { noFollow: true } as const;

/** The entry of `TargetContext.lookups` that maps folders to their real paths. */
const REAL_PATHS = "realpath";

/** A folder's real path the batch's look-ups hold already, if any. */
function knownRealPath(folder: string, lookups: Map<string, unknown> | undefined): string | undefined {
	return (lookups?.get(REAL_PATHS) as Map<string, string> | undefined)?.get(folder);
}

/** A folder's real path, asked once per batch when the batch shares its look-ups. */
async function folderRealPath(
	files: FileOperations,
	folder: string,
	lookups: Map<string, unknown> | undefined,
): Promise<string> {
	if (!lookups) return files.realpath(folder);
	// One entry of the batch's look-ups holds every folder's (the folder itself is the key: no string to build per call).
	let known = lookups.get(REAL_PATHS) as Map<string, string> | undefined;
	if (!known) {
		known = new Map();
		lookups.set(REAL_PATHS, known);
	}
	const found = known.get(folder);
	if (found !== undefined) return found;
	const real = await files.realpath(folder);
	known.set(folder, real);
	return real;
}

/** The real path of an existing name: a name that is no link lies in its folder's real path. */
async function existingRealPath(
	files: FileOperations,
	path: string,
	info: FileInfo,
	lookups: Map<string, unknown> | undefined,
): Promise<string> {
	const folder = dirname(path);
	if (!lookups || info.kind === "symlink" || folder === path) return files.realpath(path);
	return below(await folderRealPath(files, folder, lookups), [basename(path)]);
}

/**
 * The path of the names `reversed` (deepest first, as `realPathOf` collects them) below the real
 * path `folder`. Both come from a resolved path (plain names, no `.` or `..`), so they are joined
 * as they are: `join` would normalize them again on every write.
 */
function below(folder: string, reversed: readonly string[]): string {
	let path = folder;
	for (let index = reversed.length - 1; index >= 0; index--) {
		path = path.endsWith(sep) ? `${path}${reversed[index]}` : `${path}${sep}${reversed[index]}`;
	}
	return path;
}

/** True when `path` is `root` or lies below it (both absolute, compared as written). */
export function isInsideRoot(root: string, path: string): boolean {
	if (path === root) return true;
	const prefix = root.endsWith(sep) ? root : `${root}${sep}`;
	return path.startsWith(prefix);
}

/** The error a confined operation throws for an object outside the roots. */
export function outsideRootsError(path: string, real: string, roots: readonly string[]): Error {
	return Object.assign(
		new Error(
			`Access denied: ${path} resolves to ${real}, which is outside the workspace (${roots.join(", ")}). ` +
				"It may have been changed by another process while this call ran. The file was not touched.",
		),
		{ code: "EACCES", outsideRoots: true },
	);
}
