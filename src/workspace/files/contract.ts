// What a workspace's file access must offer: local disk, remote host, container or test double.

/** What kind of thing a path names. `symlink` only ever comes from `lstat` and `readdir`. */
export type FileKind = "file" | "directory" | "symlink" | "other";

/** The facts about a path that the file tools need. */
export interface FileInfo {
	/** File, directory, symlink (only from `lstat`) or anything else (socket, device, FIFO). */
	kind: FileKind;
	/** Size in bytes. */
	size: number;
	/** Permission bits (`mode & 0o7777`), e.g. `0o644`. */
	mode: number;
	/** Last modification time, ms since the epoch. */
	mtimeMs: number;
	/** Hard links to the file (`nlink`), when the backend knows them. Default: unknown (treated as 1). */
	links?: number;
}

/** One entry of a directory listing. */
export interface DirectoryEntry {
	/** The entry's own name, no path. */
	name: string;
	/** The entry's kind as the directory reports it, without following symlinks. */
	kind: FileKind;
}

/** An open file read by position, so a tool can stream a huge file with one reusable buffer. */
export interface ReadableFile {
	/**
	 * Reads up to `length` bytes at byte `position` of the file into `buffer` starting at `offset`.
	 * Resolves to the number of bytes read; 0 means end of file.
	 */
	read(request: { buffer: Uint8Array; offset: number; length: number; position: number }): Promise<number>;
	/** Releases the file. Safe to call once; the tools always call it, also on error and abort. */
	close(): Promise<void>;
	/**
	 * Optional: skips `lines` newlines from byte `position` where the file lives (a remote side),
	 * resolving to the byte after the last newline skipped, how many were found (fewer at the end),
	 * and whether the file then ended in a line without a newline (`partialLine`). The read pager
	 * then moves only the page, not everything before it. Default: the pager reads its way there.
	 * No byte at or past `end` (the size the read began with) is looked at, however fast the file
	 * grows meanwhile. Default `end`: the size when the skip starts.
	 */
	skipLines?(
		position: number,
		lines: number,
		end?: number,
	): Promise<{ position: number; lines: number; partialLine: boolean }>;
}

/** Options of `FileOperations.writeFile`. */
export interface WriteFileOptions {
	/** Permission bits for a file this call creates (the umask applies, as with `open`). Default: `0o666`. */
	mode?: number;
	/** Fail with `EEXIST` if the path already exists (used for temp files). Default: false. */
	exclusive?: boolean;
	/** Flush the data to stable storage before resolving. Default: false. */
	flush?: boolean;
}

/** Options of `FileOperations.replaceFile`. */
export interface ReplaceFileOptions {
	/** Permission bits of the new file. Default: `0o666` (the umask applies unless `exactMode`). */
	mode?: number;
	/** Set `mode` exactly, past the umask (an existing file's bits are kept this way). Default: false. */
	exactMode?: boolean;
	/** Flush the data to stable storage before the rename. Default: false. */
	flush?: boolean;
}

/** What `probeFiles` found at one path. */
export interface ProbedFile {
	/** What the name itself is (a symlink is `symlink`, not followed), or `missing` when nothing is there. */
	kind: FileKind | "missing";
	/** The content, links followed, of what can be read as a regular file there; undefined otherwise. */
	content?: Buffer;
}

/**
 * The side effects the file tools (read, write, edit, ls) share. The local default is
 * `localFileOperations`; a remote workspace (SSH, container, a virtual file system) implements
 * this interface and passes it to the tools, whose logic stays the same.
 *
 * Contract for implementations: paths are absolute, in the workspace's own syntax; failures
 * reject with an `Error` whose `code` is the POSIX name Node uses (`ENOENT`, `ENOTDIR`, `EISDIR`,
 * `EEXIST`, `EACCES`, `ELOOP`…), because the tools turn those codes into messages for the model.
 */
export interface FileOperations {
	/** Facts about `path`, following symlinks. */
	stat(path: string): Promise<FileInfo>;
	/** Facts about `path` itself: a symlink reports `kind: "symlink"`. */
	lstat(path: string): Promise<FileInfo>;
	/**
	 * Optional: `stat` (`lstat` with `noFollow`) that resolves undefined when nothing is at `path`
	 * (`ENOENT`) instead of rejecting, so the commonest answer of a write's look-ups ("not there
	 * yet") builds no error. Other failures still reject. Default: the tools catch the rejection.
	 */
	statIfExists?(path: string, options?: { noFollow?: boolean }): Promise<FileInfo | undefined>;
	/** The canonical absolute path, every symlink resolved. Rejects when the target does not exist. */
	realpath(path: string): Promise<string>;
	/** The target text of the symlink at `path`, as stored (may be relative to the link's folder). */
	readlink(path: string): Promise<string>;
	/** Entries of a directory (without `.` and `..`), in no particular order. */
	readdir(path: string): Promise<DirectoryEntry[]>;
	/** Opens a file for positional reads. */
	open(path: string): Promise<ReadableFile>;
	/** The whole content of a file. For files a tool has already decided are small enough. */
	readFile(path: string): Promise<Buffer>;
	/** Writes `data` to `path`, creating or truncating it. Not atomic: see `writeFileAtomic`. */
	writeFile(path: string, data: Uint8Array, options?: WriteFileOptions): Promise<void>;
	/** Creates a directory and, with `recursive`, its missing parents (no error when it exists). */
	mkdir(path: string, options?: { recursive?: boolean }): Promise<void>;
	/** Renames `from` to `to`, atomically replacing `to` when it exists (same file system). */
	rename(from: string, to: string): Promise<void>;
	/** Removes a file (not a directory). */
	unlink(path: string): Promise<void>;
	/**
	 * Optional: removes the empty folder at `path` (never a link, never a folder with entries:
	 * ENOTEMPTY). Undo uses it to take back the folders a write made.
	 */
	rmdir?(path: string): Promise<void>;
	/** Sets the permission bits of `path`. */
	chmod(path: string, mode: number): Promise<void>;
	/**
	 * Optional: replaces the file at `path` (not a symlink: the caller has followed links) with
	 * `data` atomically, a temp file in the same folder renamed over it, as one operation, so a
	 * backend can pin the folder for both steps. On failure no temp file is left. Default: the
	 * tools compose it from `writeFile`, `chmod` and `rename`.
	 */
	replaceFile?(path: string, data: Uint8Array, options: ReplaceFileOptions): Promise<void>;
	/**
	 * Optional: operations that refuse any object outside `roots` (real paths), checking the object
	 * really used (e.g. an opened descriptor), so a concurrent symlink swap cannot redirect them.
	 * Default: the workspace checks real paths before each operation (best effort).
	 */
	confine?(roots: readonly string[]): FileOperations | undefined;
	/**
	 * Optional: what each name is (not following links; `missing` when nothing is there) and, for a
	 * name that reads as a regular file, its first `maxBytes + 1` bytes, all in one round trip. Use
	 * through `probeFiles`, which reads a longer file whole. Default: one `lstat` and `readFile` each.
	 */
	probeFiles?(paths: readonly string[], maxBytes: number): Promise<ProbedFile[]>;
	/** Optional: the sha256 (hex) of a file's content, computed where it lives. Default: read and hashed here. */
	hash?(path: string): Promise<string>;
	/**
	 * Optional: creates a symlink at `path` whose target text is `target` (stored as given, never
	 * followed); rejects with `EEXIST` when something is at `path`. Confined operations judge the
	 * folder the link is made in. Default: none (undo then cannot put a symlink back there, and says so).
	 */
	symlink?(target: string, path: string): Promise<void>;
	/**
	 * Set on operations confined to roots (what `confine` and the workspace's `filesFor` return):
	 * the real roots they refuse to leave. A file with several hard links may have names outside
	 * them, so `writeFileAtomic` never modifies one in place through such operations. Default: unset.
	 */
	readonly confinedTo?: readonly string[];
}

/** The POSIX error code of a file-system failure (`ENOENT`, …), or undefined. */
export function errorCode(error: unknown): string | undefined {
	const code = (error as { code?: unknown } | null)?.code;
	return typeof code === "string" ? code : undefined;
}

/**
 * Facts about `path` (about a symlink itself with `noFollow`), or undefined when it, or a parent
 * of it, does not exist (`ENOENT`, `ENOTDIR`); other failures reject.
 */
export async function infoIfExists(
	operations: FileOperations,
	path: string,
	options: { noFollow?: boolean } = {},
): Promise<FileInfo | undefined> {
	try {
		if (operations.statIfExists) return await operations.statIfExists(path, options);
		return await (options.noFollow ? operations.lstat(path) : operations.stat(path));
	} catch (error) {
		if (isNotFound(error)) return undefined;
		throw error;
	}
}

/** True when `error` says the path (or a parent of it) does not exist. */
export function isNotFound(error: unknown): boolean {
	const code = errorCode(error);
	return code === "ENOENT" || code === "ENOTDIR";
}
