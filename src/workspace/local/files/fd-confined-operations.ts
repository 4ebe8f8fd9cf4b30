import * as fsSync from "node:fs";
import { constants as fsConstants } from "node:fs";
import { basename, dirname } from "node:path";
import { refuseBoundName } from "../../files/bound-paths.js";
import { tempNameFor } from "../../files/temp-name.js";
import { isInsideRoot, outsideRootsError } from "../../paths/real-path.js";
import {
	type DirectoryEntry,
	type FileOperations,
	type ReadableFile,
	type ReplaceFileOptions,
	readSmallDescriptorSync,
	SYNC_READ_RUN_BYTES,
	type WriteFileOptions,
} from "./operations.js";
import { openReadable } from "./readable-file.js";

const directoryFlags = fsConstants.O_RDONLY | fsConstants.O_DIRECTORY;
const noFollow = fsConstants.O_NOFOLLOW ?? 0;
const readFlags = fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0);

/** True where descriptors can be checked through `/proc/self/fd`. */
function canVerifyDescriptors(): boolean {
	return process.platform === "linux" && fsSync.existsSync("/proc/self/fd");
}

/** Throws unless the opened object's real path lies inside `roots`. */
function verify(descriptor: number, path: string, roots: readonly string[]): void {
	const real = fsSync.readlinkSync(`/proc/self/fd/${descriptor}`);
	if (!roots.some((root) => isInsideRoot(root, real))) throw outsideRootsError(path, real, roots);
}

/** Opens `path` with `flags`, verifies it, and hands the descriptor to `use`; always closes it. */
function withVerified<T>(path: string, flags: number, roots: readonly string[], use: (descriptor: number) => T): T {
	const descriptor = fsSync.openSync(path, flags);
	try {
		verify(descriptor, path, roots);
		return use(descriptor);
	} finally {
		fsSync.closeSync(descriptor);
	}
}

/** Runs `use` with a function naming entries of the verified folder of `path` (`/proc/self/fd/N/name`). */
function inVerifiedFolder<T>(
	path: string,
	roots: readonly string[],
	use: (inFolder: (name: string) => string) => T,
): T {
	return withVerified(dirname(path), directoryFlags, roots, (folder) =>
		use((name) => `/proc/self/fd/${folder}/${name}`),
	);
}

function writeAll(descriptor: number, data: Uint8Array): void {
	let written = 0;
	while (written < data.length) written += fsSync.writeSync(descriptor, data, written, data.length - written);
}

function openVerified(path: string, roots: readonly string[]): Promise<ReadableFile> {
	return openReadable(path, {
		syncRunBytes: SYNC_READ_RUN_BYTES,
		check: (descriptor) => verify(descriptor, path, roots),
	});
}

/** Temp file and rename inside one verified folder; the temp file never outlives a failure. */
function replaceVerified(targetPath: string, data: Uint8Array, options: ReplaceFileOptions, roots: readonly string[]) {
	inVerifiedFolder(targetPath, roots, (inFolder) => {
		const tempName = tempNameFor(basename(targetPath));
		const flags = fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | noFollow;
		const temp = fsSync.openSync(inFolder(tempName), flags, options.mode ?? 0o666);
		try {
			writeAll(temp, data);
			// `open` applied the umask; an old file's exact bits must survive the replacement.
			if (options.exactMode) fsSync.fchmodSync(temp, options.mode ?? 0o666);
			if (options.flush) fsSync.fdatasyncSync(temp);
			fsSync.closeSync(temp);
			fsSync.renameSync(inFolder(tempName), inFolder(basename(targetPath)));
		} catch (error) {
			try {
				fsSync.closeSync(temp);
			} catch {}
			fsSync.rmSync(inFolder(tempName), { force: true });
			throw error;
		}
	});
}

/** Creates missing folders one by one, each inside the verified one above it, never through a link. */
function mkdirVerified(path: string, recursive: boolean, roots: readonly string[]): void {
	if (!recursive) {
		inVerifiedFolder(path, roots, (inFolder) => fsSync.mkdirSync(inFolder(basename(path))));
		return;
	}
	const missing: string[] = [];
	let existing = path;
	while (!fsSync.existsSync(existing) && dirname(existing) !== existing) {
		missing.unshift(basename(existing));
		existing = dirname(existing);
	}
	let folder = fsSync.openSync(existing, directoryFlags);
	try {
		verify(folder, path, roots);
		for (const name of missing) {
			const child = `/proc/self/fd/${folder}/${name}`;
			fsSync.mkdirSync(child);
			const next = fsSync.openSync(child, directoryFlags | noFollow);
			fsSync.closeSync(folder);
			folder = next;
		}
	} catch (error) {
		if ((error as { code?: string }).code !== "EEXIST") throw error;
		// Made meanwhile by someone else: check what is there now.
		withVerified(path, directoryFlags, roots, () => undefined);
	} finally {
		fsSync.closeSync(folder);
	}
}

function writeVerified(path: string, data: Uint8Array, options: WriteFileOptions, roots: readonly string[]): void {
	inVerifiedFolder(path, roots, (inFolder) => {
		const create = options.exclusive ? fsConstants.O_EXCL : fsConstants.O_TRUNC;
		const flags = fsConstants.O_WRONLY | fsConstants.O_CREAT | create | noFollow;
		const descriptor = fsSync.openSync(inFolder(basename(path)), flags, options.mode ?? 0o666);
		try {
			writeAll(descriptor, data);
			if (options.flush) fsSync.fdatasyncSync(descriptor);
		} finally {
			fsSync.closeSync(descriptor);
		}
	});
}

function kindOfEntry(entry: fsSync.Dirent): DirectoryEntry["kind"] {
	if (entry.isFile()) return "file";
	if (entry.isDirectory()) return "directory";
	return entry.isSymbolicLink() ? "symlink" : "other";
}

/**
 * Local file operations confined to `roots` (real paths) that check the object they really use,
 * so a concurrent symlink swap cannot move a call outside: each file or directory is opened
 * first, and the opened descriptor's real path is read back through `/proc/self/fd/N` and
 * checked; names inside a verified directory are then reached through `/proc/self/fd/N/name`
 * (the effect of `openat`/`renameat`, which Node lacks), with `O_NOFOLLOW`/`O_EXCL` where a
 * link must not be followed. Metadata (`stat`, `lstat`, `realpath`, `readlink`) passes through:
 * it shows no content. Linux only: returns undefined where `/proc/self/fd` is missing.
 */
export function createFdConfinedOperations(base: FileOperations, roots: readonly string[]): FileOperations | undefined {
	if (!canVerifyDescriptors()) return undefined;
	return {
		stat: (path) => base.stat(path),
		lstat: (path) => base.lstat(path),
		...(base.statIfExists ? { statIfExists: base.statIfExists.bind(base) } : {}),
		realpath: (path) => base.realpath(path),
		readlink: (path) => base.readlink(path),
		readdir: async (path) =>
			withVerified(path, directoryFlags, roots, (folder) =>
				fsSync
					.readdirSync(`/proc/self/fd/${folder}`, { withFileTypes: true })
					.map((entry) => ({ name: entry.name, kind: kindOfEntry(entry) })),
			),
		open: (path) => openVerified(path, roots),
		readFile: async (path) => {
			// A small regular file in one synchronous pass, as the local disk reads it (a thread-pool
			// round trip per open, read and close cost more than the reads, and the stale-write hook
			// hashes every file a call wrote); anything else (larger, a FIFO) asynchronously.
			const small = withVerified(path, readFlags, roots, readSmallDescriptorSync);
			if (small) return small;
			const file = await openVerified(path, roots);
			try {
				return await readAll(file);
			} finally {
				await file.close();
			}
		},
		writeFile: async (path, data, options = {}) => writeVerified(path, data, options, roots),
		mkdir: async (path, options) => mkdirVerified(path, options?.recursive ?? false, roots),
		rename: async (from, to) => {
			refuseBoundName(from, "rename");
			refuseBoundName(to, "replace");
			return inVerifiedFolder(from, roots, (fromFolder) =>
				inVerifiedFolder(to, roots, (toFolder) =>
					fsSync.renameSync(fromFolder(basename(from)), toFolder(basename(to))),
				),
			);
		},
		unlink: async (path) => {
			refuseBoundName(path, "remove");
			return inVerifiedFolder(path, roots, (inFolder) => fsSync.unlinkSync(inFolder(basename(path))));
		},
		// Inside its verified folder, by name: rmdir never follows a link there (it fails, ENOTDIR).
		rmdir: async (path) => inVerifiedFolder(path, roots, (inFolder) => fsSync.rmdirSync(inFolder(basename(path)))),
		symlink: async (target, path) =>
			inVerifiedFolder(path, roots, (inFolder) => fsSync.symlinkSync(target, inFolder(basename(path)))),
		chmod: async (path, mode) =>
			withVerified(path, readFlags, roots, (descriptor) => fsSync.fchmodSync(descriptor, mode)),
		replaceFile: async (path, data, options) => {
			refuseBoundName(path, "replace");
			return replaceVerified(path, data, options, roots);
		},
	};
}

async function readAll(file: ReadableFile): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for (let position = 0; ; ) {
		const buffer = Buffer.allocUnsafe(1 << 16);
		const bytesRead = await file.read({ buffer, offset: 0, length: buffer.length, position });
		if (bytesRead === 0) return Buffer.concat(chunks);
		chunks.push(buffer.subarray(0, bytesRead));
		position += bytesRead;
	}
}

/** A folder held open for a search: `path` reaches it whatever happens to the links that led to it. */
export interface PinnedFolder {
	/** Where to read the folder: `/proc/self/fd/N` when pinned, else the path as given. */
	path: string;
	/**
	 * Where it could not be held open (a remote disk): the real path the check found, which the
	 * search checks again in the command that enters the folder (see `GrepRequest.realRoot`).
	 */
	realPath?: string;
	/** Closes the folder. Call once the search has ended. */
	release(): void;
}

/**
 * Opens the folder at `path`, checks the opened folder's real path against `roots`, and keeps it
 * open, so a search can run inside exactly that folder (ripgrep gets it as its working
 * directory: the child changes into `/proc/self/fd/N` before it runs, while it still holds the
 * descriptor). Linux only: undefined where `/proc/self/fd` is missing.
 */
export function pinLocalFolder(path: string, roots: readonly string[]): PinnedFolder | undefined {
	if (!canVerifyDescriptors()) return undefined;
	const folder = fsSync.openSync(path, directoryFlags);
	try {
		verify(folder, path, roots);
	} catch (error) {
		fsSync.closeSync(folder);
		throw error;
	}
	let released = false;
	return {
		path: `/proc/self/fd/${folder}`,
		release: () => {
			if (released) return;
			released = true;
			fsSync.closeSync(folder);
		},
	};
}
