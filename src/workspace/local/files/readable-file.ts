import * as fsSync from "node:fs";
import { constants as fsConstants } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { promisify } from "node:util";
import type { ReadableFile } from "../../files/contract.js";

const readAsync = promisify(fsSync.read);
const closeAsync = promisify(fsSync.close);
const nonBlocking = fsConstants.O_NONBLOCK ?? 0;

/** A `ReadableFile` over an open handle; closing twice is harmless. */
function readableFile(handle: FileHandle): ReadableFile {
	let closed = false;
	return {
		read: async ({ buffer, offset, length, position }) =>
			(await handle.read(buffer, offset, length, position)).bytesRead,
		close: async () => {
			if (closed) return;
			closed = true;
			await handle.close();
		},
	};
}

/** Options of `openReadable`. */
export interface OpenReadableOptions {
	/**
	 * Regular files up to this size are read with synchronous calls (see `SYNC_IO_MAX_BYTES` in
	 * operations.ts): a thread-pool round trip per open, read and close costs more than the calls.
	 */
	syncUpTo: number;
	/** Checks the opened descriptor before anything is read (confinement); throws to refuse it. */
	check?: (descriptor: number) => void;
	/**
	 * Opens anything but a regular file again, blocking, on the thread pool (a FIFO then waits for
	 * its writer there, as a plain open does), instead of reading it through the non-blocking
	 * descriptor. Default: false.
	 */
	reopenSpecial?: boolean;
}

/**
 * Opens `path` for reading. The open is synchronous and non-blocking (a FIFO cannot hold it up),
 * followed by one `fstat` of the descriptor: a regular file of at most `syncUpTo` bytes is then
 * read with synchronous calls, so reading a small file costs no thread-pool round trip at all
 * (100 parallel reads of 256 KB made 300–500 of them, most of their time); a larger one is read
 * through the thread pool from the same descriptor.
 */
export async function openReadable(path: string, options: OpenReadableOptions): Promise<ReadableFile> {
	const descriptor = fsSync.openSync(path, fsConstants.O_RDONLY | nonBlocking);
	let stats: fsSync.Stats;
	try {
		options.check?.(descriptor);
		stats = fsSync.fstatSync(descriptor);
	} catch (error) {
		fsSync.closeSync(descriptor);
		throw error;
	}
	if (!stats.isFile() && options.reopenSpecial) {
		fsSync.closeSync(descriptor);
		return readableFile(await open(path, fsConstants.O_RDONLY));
	}
	return stats.isFile() && stats.size <= options.syncUpTo ? syncFile(descriptor) : pooledFile(descriptor);
}

function syncFile(descriptor: number): ReadableFile {
	let closed = false;
	return {
		read: async ({ buffer, offset, length, position }) => fsSync.readSync(descriptor, buffer, offset, length, position),
		close: async () => {
			if (closed) return;
			closed = true;
			fsSync.closeSync(descriptor);
		},
	};
}

function pooledFile(descriptor: number): ReadableFile {
	let closed = false;
	return {
		read: async ({ buffer, offset, length, position }) =>
			(await readAsync(descriptor, buffer, offset, length, position)).bytesRead,
		close: async () => {
			if (closed) return;
			closed = true;
			await closeAsync(descriptor);
		},
	};
}
