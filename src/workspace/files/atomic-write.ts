import { basename, dirname, resolve, sep } from "node:path";
import { localFileOperations } from "../local/index.js";
import { isBoundPath } from "./bound-paths.js";
import { type FileInfo, type FileOperations, infoIfExists } from "./contract.js";
import { tempNameFor } from "./temp-name.js";

/** Options of `writeFileAtomic`. */
export interface WriteFileAtomicOptions {
	/** Where the bytes go. Default: `localFileOperations`. */
	operations?: FileOperations;
	/** Flush the temp file to stable storage before the rename. Default: false (as editors and `sed -i`). */
	flush?: boolean;
}

/** What `writeFileAtomic` did. */
export interface WriteFileAtomicResult {
	/** The file actually written: the final target when `path` was a symlink (chain). */
	targetPath: string;
	/** True when the file did not exist before. */
	created: boolean;
	/** Bytes written. */
	bytes: number;
	/** Permission bits the file has now (kept from the old file when replaced). */
	mode: number | undefined;
	/**
	 * Set when the file was overwritten in place instead of replaced by rename: to keep its hard
	 * links (`hard-links`), because its folder refused the temp file (`read-only-folder`), or
	 * because a running sandboxed command has it bound read-only (`sandbox-bound`, see bound-paths.ts).
	 */
	inPlace?: { reason: "hard-links" | "read-only-folder" | "sandbox-bound"; links: number };
	/**
	 * Set when a file with several hard links was replaced by rename (confined operations: its
	 * other names may lie outside the workspace): how many names it had. Those other names keep
	 * the old content; this name now has a file of its own.
	 */
	replacedLinks?: number;
}

/** How many symlinks a chain may have before we call it a loop, as the kernel does (`ELOOP`). */
const MAX_SYMLINK_HOPS = 40;

function fileSystemError(code: string, message: string): Error {
	return Object.assign(new Error(message), { code });
}

/**
 * Follows `path` through any symlinks (also dangling ones, whose target is then created) to the
 * file that must really be written, and reports what exists there now.
 */
export async function resolveWriteTarget(
	operations: FileOperations,
	path: string,
): Promise<{ targetPath: string; existing: FileInfo | undefined }> {
	let current = path;
	for (let hop = 0; hop <= MAX_SYMLINK_HOPS; hop++) {
		const info = await infoIfExists(operations, current, { noFollow: true });
		if (!info) return { targetPath: current, existing: undefined };
		if (info.kind === "directory") {
			throw fileSystemError("EISDIR", `EISDIR: illegal operation on a directory, write '${current}'`);
		}
		if (info.kind !== "symlink") return { targetPath: current, existing: info };
		const link = await operations.readlink(current);
		// A relative link is relative to the real folder holding it, not to the lexical path.
		current = resolve(await operations.realpath(dirname(current)), link);
	}
	throw fileSystemError("ELOOP", `ELOOP: too many symbolic links encountered, write '${path}'`);
}

/**
 * The permission bits a file keeps when its content is replaced or put back: all but set-user-ID
 * and set-group-ID, which the kernel drops too when a process without CAP_FSETID writes a file.
 * Kept, they made new bytes a program that runs as the file's owner (root's, for a toolbelt running
 * as root, as every such program of a root file system built in the workspace is); a file put back
 * by undo is made anew by the user undoing, so another user's set-user-ID program would come back
 * as one of that user's.
 */
export function keptMode(mode: number): number {
	return mode & ~0o6000;
}

/** Writes `bytes` over the file in place (its hard links or its folder require it), dropping what `keptMode` drops. */
async function writeInPlace(
	operations: FileOperations,
	targetPath: string,
	bytes: Uint8Array,
	existing: FileInfo,
	flush: boolean,
) {
	await operations.writeFile(targetPath, bytes, { flush });
	if (keptMode(existing.mode) !== existing.mode) await operations.chmod(targetPath, keptMode(existing.mode));
}

function tempPathFor(targetPath: string): string {
	// Same folder, so the rename stays on one file system and is atomic. The folder is taken as the
	// target names it, not normalized (`join` would, on every write): the temp name holds no separator.
	const folder = dirname(targetPath);
	const name = tempNameFor(basename(targetPath));
	return folder.endsWith(sep) ? `${folder}${name}` : `${folder}${sep}${name}`;
}

/**
 * Writes `data` to `path` atomically: the bytes go to a temp file in the target's folder, which
 * is then renamed over the target, so readers see the old file or the new one, never a part.
 *
 * - Through a symlink (or a chain of them) the final target is written and the link stays a link.
 * - An existing file keeps its permission bits but set-user-ID and set-group-ID (`keptMode`); a
 *   read-only file (no owner write bit) is refused with `EACCES`, as `open` would refuse it, even
 *   though the rename alone could replace it.
 * - Missing parent folders are created.
 * - On any failure the temp file is removed and the target is left exactly as it was.
 * - Three cases write in place instead (not atomic; `inPlace` says which): a file with more than
 *   one hard link (a rename would break the links), a writable file whose folder refuses the temp
 *   file (read-only or immutable folder), and a file a live sandbox of this process has bound
 *   read-only onto itself (a rename would lift that bind for the commands still running in it).
 * - Through confined operations (`operations.confinedTo` set) a file with more than one hard link
 *   is never modified in place, since its other names may lie outside the roots (pnpm's store):
 *   it is replaced by rename (`replacedLinks` says so), or, where its folder refuses the temp
 *   file, the write fails and nothing changes.
 */
export async function writeFileAtomic(
	path: string,
	data: string | Uint8Array,
	options: WriteFileAtomicOptions = {},
): Promise<WriteFileAtomicResult> {
	const operations = options.operations ?? localFileOperations;
	const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
	const { targetPath, existing } = await resolveWriteTarget(operations, path);
	if (existing && existing.kind !== "file") {
		throw fileSystemError("EINVAL", `EINVAL: not a regular file, write '${targetPath}'`);
	}
	if (existing && (existing.mode & 0o200) === 0) {
		throw fileSystemError("EACCES", `EACCES: permission denied (the file is read-only), write '${targetPath}'`);
	}
	const result = { targetPath, created: !existing, bytes: bytes.length, mode: existing && keptMode(existing.mode) };
	const links = existing?.links ?? 1;
	// Confined: the other names cannot be listed and may be outside, so this name gets a file of its own.
	if (existing && links > 1 && operations.confinedTo) {
		return {
			...(await replaceByRename(operations, targetPath, bytes, existing, options.flush ?? false)),
			replacedLinks: links,
		};
	}
	// A rename would unmount the sandbox's read-only bind of this name for its running commands.
	if (existing && isBoundPath(targetPath)) {
		await writeInPlace(operations, targetPath, bytes, existing, options.flush ?? false);
		return { ...result, inPlace: { reason: "sandbox-bound", links } };
	}
	// A rename would give this name a new inode and leave the other names with the old content.
	if (existing && links > 1) {
		await writeInPlace(operations, targetPath, bytes, existing, options.flush ?? false);
		return { ...result, inPlace: { reason: "hard-links", links: existing.links ?? 1 } };
	}
	try {
		const replace = () => replaceByRename(operations, targetPath, bytes, existing, options.flush ?? false);
		return await (existing ? replace() : creatingFolders(operations, targetPath, replace));
	} catch (error) {
		// A writable file in a folder that refuses new entries: the temp file cannot exist there.
		if (!existing || !FOLDER_REFUSALS.has(String((error as { code?: unknown }).code))) throw error;
		try {
			await writeInPlace(operations, targetPath, bytes, existing, options.flush ?? false);
		} catch {
			throw error;
		}
		return { ...result, inPlace: { reason: "read-only-folder", links: existing.links ?? 1 } };
	}
}

/**
 * Runs `write`, creating the missing parent folders and trying once more when it fails because
 * a folder is missing. Creating them first would cost every write a recursive `mkdir` (a round
 * trip through the thread pool, and the folder's lock) for what is nearly always there already.
 */
async function creatingFolders<T>(operations: FileOperations, targetPath: string, write: () => Promise<T>): Promise<T> {
	try {
		return await write();
	} catch (error) {
		if ((error as { code?: unknown } | null)?.code !== "ENOENT") throw error;
		await operations.mkdir(dirname(targetPath), { recursive: true });
		return write();
	}
}

/** Errors of creating the temp file that say the folder, not the file, refuses the write. */
const FOLDER_REFUSALS = new Set(["EACCES", "EPERM", "EROFS"]);

async function replaceByRename(
	operations: FileOperations,
	targetPath: string,
	bytes: Uint8Array,
	existing: FileInfo | undefined,
	flush: boolean,
): Promise<WriteFileAtomicResult> {
	const options = { flush };

	if (operations.replaceFile) {
		await operations.replaceFile(targetPath, bytes, {
			mode: existing ? keptMode(existing.mode) : 0o666,
			exactMode: existing !== undefined,
			flush: options.flush ?? false,
		});
		return { targetPath, created: !existing, bytes: bytes.length, mode: existing && keptMode(existing.mode) };
	}
	const tempPath = tempPathFor(targetPath);
	let tempCreated = false;
	try {
		await operations.writeFile(tempPath, bytes, {
			exclusive: true,
			mode: existing ? keptMode(existing.mode) : 0o666,
			flush: options.flush ?? false,
		});
		tempCreated = true;
		// `open` applied the umask; the old file's bits must survive the replacement.
		if (existing) await operations.chmod(tempPath, keptMode(existing.mode));
		await operations.rename(tempPath, targetPath);
		tempCreated = false;
	} catch (error) {
		if (tempCreated || isPartialTemp(error)) await operations.unlink(tempPath).catch(() => {});
		throw error;
	}
	return { targetPath, created: !existing, bytes: bytes.length, mode: existing && keptMode(existing.mode) };
}

/** A failed `writeFile` (e.g. ENOSPC half-way) may still have left the temp file behind. */
function isPartialTemp(error: unknown): boolean {
	const code = (error as { code?: unknown } | null)?.code;
	return code !== "EEXIST";
}
