import * as fsSync from "node:fs";
import { constants as fsConstants } from "node:fs";
import { mkdir, open, readdir, readFile } from "node:fs/promises";
import { refuseBoundName } from "../../files/bound-paths.js";
import {
	type DirectoryEntry,
	errorCode,
	type FileInfo,
	type FileKind,
	type FileOperations,
	infoIfExists,
	isNotFound,
	type ReadableFile,
	type ReplaceFileOptions,
	type WriteFileOptions,
} from "../../files/contract.js";
import { kernelRealPath } from "./kernel-real-path.js";
import { openReadable } from "./readable-file.js";

// The contract lives in files/contract.ts; its names stay importable from here.
export {
	type DirectoryEntry,
	errorCode,
	type FileInfo,
	type FileKind,
	type FileOperations,
	infoIfExists,
	isNotFound,
	type ReadableFile,
	type ReplaceFileOptions,
	type WriteFileOptions,
};

function kindOf(stats: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }): FileKind {
	if (stats.isFile()) return "file";
	if (stats.isDirectory()) return "directory";
	if (stats.isSymbolicLink()) return "symlink";
	return "other";
}

function infoOf(stats: import("node:fs").Stats): FileInfo {
	return {
		kind: kindOf(stats),
		size: stats.size,
		mode: stats.mode & 0o7777,
		mtimeMs: stats.mtimeMs,
		links: stats.nlink,
	};
}

/**
 * Files up to this size are read and written with synchronous calls. A round trip through the
 * thread pool costs more than the system call itself for metadata and small files (an edit makes a
 * dozen of them), and the tools go on to process these bytes synchronously anyway, so the event
 * loop is held no longer than it already is. Larger files go through the thread pool.
 */
export const SYNC_IO_MAX_BYTES = 4 * 2 ** 20;

/**
 * Bytes of a regular file read with synchronous calls in a row, through an opened `ReadableFile`;
 * the next read goes through the thread pool, and the event loop turns. The tools process what
 * they read synchronously (a page, a count of lines), and a chunk's copy from the page cache costs
 * about what its processing does, so a run holds the loop ~2-3 ms when the file is cached, while
 * a thread-pool round trip per chunk cost more than the copy. Most reads (a page, a file of a few
 * MB) are one run.
 */
export const SYNC_READ_RUN_BYTES = 8 * 2 ** 20;

/**
 * Reads a regular file of at most `SYNC_IO_MAX_BYTES` synchronously, or returns undefined when the
 * path needs the asynchronous path (larger, or not a regular file). Opened non-blocking, so a FIFO
 * never stalls the event loop: it is handed to the asynchronous read instead.
 */
function readSmallFileSync(path: string): Buffer | undefined {
	const descriptor = fsSync.openSync(path, fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0));
	try {
		return readSmallDescriptorSync(descriptor);
	} finally {
		fsSync.closeSync(descriptor);
	}
}

/**
 * The whole content of the open `descriptor`, read synchronously, when it is a regular file of at
 * most `SYNC_IO_MAX_BYTES`; undefined otherwise (larger, growing, or not a regular file), and the
 * caller reads it asynchronously instead. Does not close the descriptor.
 */
export function readSmallDescriptorSync(descriptor: number): Buffer | undefined {
	const stats = fsSync.fstatSync(descriptor);
	if (!stats.isFile() || stats.size > SYNC_IO_MAX_BYTES) return undefined;
	// One byte more than the size, to notice a file that grew since the fstat.
	const buffer = Buffer.allocUnsafe(stats.size + 1);
	let length = 0;
	for (;;) {
		const bytesRead = fsSync.readSync(descriptor, buffer, length, buffer.length - length, null);
		if (bytesRead === 0) return buffer.subarray(0, length);
		length += bytesRead;
		if (length === buffer.length) return undefined; // grew: let the asynchronous read take all of it
	}
}

async function writeFileAsync(path: string, data: Uint8Array, options: WriteFileOptions): Promise<void> {
	const handle = await open(path, options.exclusive ? "wx" : "w", options.mode ?? 0o666);
	try {
		let written = 0;
		while (written < data.length) {
			const { bytesWritten } = await handle.write(data, written, data.length - written);
			written += bytesWritten;
		}
		if (options.flush) await handle.datasync();
	} finally {
		await handle.close();
	}
}

function writeNewFileSync(path: string, data: Uint8Array, options: WriteFileOptions): void {
	const descriptor = fsSync.openSync(path, "wx", options.mode ?? 0o666);
	try {
		let written = 0;
		while (written < data.length) written += fsSync.writeSync(descriptor, data, written, data.length - written);
		if (options.flush) fsSync.fdatasyncSync(descriptor);
	} finally {
		fsSync.closeSync(descriptor);
	}
}

/**
 * The local file system. Metadata calls and small files use synchronous system calls (see
 * `SYNC_IO_MAX_BYTES`); directory listings, large files and anything that could block (a FIFO,
 * an existing path opened for writing) use `node:fs/promises`.
 */
export const localFileOperations: FileOperations = {
	stat: async (path) => infoOf(fsSync.statSync(path)),
	lstat: async (path) => infoOf(fsSync.lstatSync(path)),
	statIfExists: async (path, options) => {
		const stats = options?.noFollow
			? fsSync.lstatSync(path, { throwIfNoEntry: false })
			: fsSync.statSync(path, { throwIfNoEntry: false });
		return stats && infoOf(stats);
	},
	realpath: async (path) => kernelRealPath(path),
	readlink: async (path) => fsSync.readlinkSync(path),
	readdir: async (path) =>
		(await readdir(path, { withFileTypes: true })).map((entry) => ({ name: entry.name, kind: kindOf(entry) })),
	open: (path) => openReadable(path, { syncRunBytes: SYNC_READ_RUN_BYTES, reopenSpecial: true }),
	readFile: async (path) => readSmallFileSync(path) ?? (await readFile(path)),
	writeFile: async (path, data, options = {}) => {
		// Only a new file is written synchronously: opening an existing path could block (a FIFO).
		if (options.exclusive && data.length <= SYNC_IO_MAX_BYTES) writeNewFileSync(path, data, options);
		else await writeFileAsync(path, data, options);
	},
	mkdir: async (path, options) => {
		await mkdir(path, { recursive: options?.recursive ?? false });
	},
	rename: async (from, to) => {
		refuseBoundName(from, "rename");
		refuseBoundName(to, "replace");
		fsSync.renameSync(from, to);
	},
	unlink: async (path) => {
		refuseBoundName(path, "remove");
		fsSync.unlinkSync(path);
	},
	rmdir: async (path) => {
		// rmdir(2) on a link to a folder fails (ENOTDIR); lstat first says so for every platform.
		if (fsSync.lstatSync(path).isSymbolicLink())
			throw Object.assign(new Error(`ENOTDIR: ${path}`), { code: "ENOTDIR" });
		fsSync.rmdirSync(path);
	},
	symlink: async (target, path) => fsSync.symlinkSync(target, path),
	chmod: async (path, mode) => fsSync.chmodSync(path, mode),
};
