import { join } from "node:path";
import { throwIfAborted } from "../../engine/index.js";
import { type DirectoryEntry, errorCode, type FileOperations, visibleName } from "../../workspace/index.js";
import { compareCodePoints } from "./compare.js";

/** Options of `listDirectory`. */
export interface ListDirectoryOptions {
	/** File access. */
	operations: FileOperations;
	/** Absolute path of the directory to list. */
	directory: string;
	/** Levels to list: 1 = the directory's own entries. `Infinity` for all. */
	maxDepth: number;
	/** Most entries to return. */
	limit: number;
	/** Most UTF-8 bytes of output (lines plus newlines). */
	maxBytes: number;
	/** Stops the walk between directories. */
	signal?: AbortSignal;
	/** True for an entry (absolute path) that must not be shown nor entered (a read deny rule). Default: none. */
	hides?: (absolutePath: string) => boolean;
}

/** What `listDirectory` found. */
export interface DirectoryListing {
	/** One line per entry: relative path, `/` after directories, `-> target` for symlinks. */
	lines: string[];
	/** Why entries were left out, or null when the listing is complete. */
	truncatedBy: "limit" | "bytes" | null;
	/** Entries there are in all, when known (always for a flat listing). */
	total: number | undefined;
	/** Broken symlinks among the lines. */
	brokenSymlinks: number;
	/** Entries left out because `hides` named them. */
	withheld: number;
}

interface DescribedEntry {
	line: string;
	/** A real directory (not a symlink to one) that a recursive walk descends into. */
	descend: boolean;
	broken: boolean;
}

/** Describes a symlink by where it points: `name/ -> target` for a folder, marked when broken. */
async function describeSymlink(operations: FileOperations, path: string, relative: string): Promise<DescribedEntry> {
	const target = visibleName(await operations.readlink(path).catch(() => "?"));
	try {
		const info = await operations.stat(path);
		return { line: `${relative}${info.kind === "directory" ? "/" : ""} -> ${target}`, descend: false, broken: false };
	} catch (error) {
		const code = errorCode(error);
		if (code === "ENOENT" || code === "ENOTDIR" || code === "ELOOP") {
			return { line: `${relative} -> ${target} [broken symlink]`, descend: false, broken: true };
		}
		return { line: `${relative} -> ${target}`, descend: false, broken: false };
	}
}

async function describe(
	operations: FileOperations,
	directory: string,
	entry: DirectoryEntry,
	prefix: string,
): Promise<DescribedEntry> {
	const relative = prefix + visibleName(entry.name);
	let kind = entry.kind;
	// Some file systems report no type in the listing; ask, without following links.
	if (kind === "other")
		kind = (await operations.lstat(join(directory, entry.name)).catch(() => undefined))?.kind ?? kind;
	if (kind === "directory") return { line: `${relative}/`, descend: true, broken: false };
	if (kind === "symlink") return describeSymlink(operations, join(directory, entry.name), relative);
	return { line: relative, descend: false, broken: false };
}

/**
 * Lists a directory depth-first, each folder's entries in code-point order, so the output is the
 * same on every machine. Symlinked folders are shown but not entered (no loops). Stops as soon as
 * `limit + 1` entries prove that some were left out.
 */
export async function listDirectory(options: ListDirectoryOptions): Promise<DirectoryListing> {
	const { operations, limit, maxBytes, maxDepth, signal, hides } = options;
	let withheld = 0;
	const lines: string[] = [];
	let bytes = 0;
	let brokenSymlinks = 0;
	let truncatedBy: DirectoryListing["truncatedBy"] = null;
	let total: number | undefined;

	const visit = async (directory: string, prefix: string, depth: number): Promise<void> => {
		throwIfAborted(signal);
		const listed = await operations.readdir(directory);
		const entries = hides ? listed.filter((entry) => !hides(join(directory, entry.name))) : listed;
		withheld += listed.length - entries.length;
		if (depth === 1 && maxDepth === 1) total = entries.length;
		entries.sort((left, right) => compareCodePoints(left.name, right.name));
		for (const entry of entries) {
			if (truncatedBy) return;
			if (lines.length >= limit) {
				truncatedBy = "limit";
				return;
			}
			const described = await describe(operations, directory, entry, prefix);
			const lineBytes = Buffer.byteLength(described.line, "utf8") + (lines.length > 0 ? 1 : 0);
			if (bytes + lineBytes > maxBytes) {
				truncatedBy = "bytes";
				return;
			}
			lines.push(described.line);
			bytes += lineBytes;
			if (described.broken) brokenSymlinks++;
			if (described.descend && depth < maxDepth) {
				try {
					await visit(join(directory, entry.name), `${prefix}${visibleName(entry.name)}/`, depth + 1);
				} catch (error) {
					if (errorCode(error) === undefined) throw error;
					// One unreadable subfolder should not hide the rest of the tree.
					lines[lines.length - 1] = `${described.line} [cannot list: ${errorCode(error)}]`;
				}
			}
		}
	};

	await visit(options.directory, "", 1);
	return { lines, truncatedBy, total, brokenSymlinks, withheld };
}
