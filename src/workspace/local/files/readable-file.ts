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
	 * A regular file is read with synchronous calls, at most this many bytes in a row; the read after
	 * such a run goes through the thread pool, so the event loop turns at least that often however
	 * much is read (see `SYNC_READ_RUN_BYTES` in operations.ts).
	 */
	syncRunBytes: number;
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
 * followed by one `fstat` of the descriptor: a regular file is then read with synchronous calls in
 * runs of `syncRunBytes`, one read through the thread pool between runs. A page of a large file or
 * a small file whole costs no thread-pool round trip at all (100 parallel reads of 256 KB made
 * 300–500 of them, most of their time), and a long scan one per run. Anything else (a FIFO, a
 * device) is read through the thread pool from the same descriptor.
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
	return descriptorFile(descriptor, stats.isFile() ? options.syncRunBytes : 0);
}

/** A `ReadableFile` over `descriptor`: synchronous reads up to `syncRunBytes` in a row, then one through the thread pool. */
function descriptorFile(descriptor: number, syncRunBytes: number): ReadableFile {
	let closed = false;
	let run = 0;
	return {
		read: async ({ buffer, offset, length, position }) => {
			if (run + length <= syncRunBytes) {
				const bytesRead = fsSync.readSync(descriptor, buffer, offset, length, position);
				run += bytesRead;
				return bytesRead;
			}
			run = 0;
			return (await readAsync(descriptor, buffer, offset, length, position)).bytesRead;
		},
		close: async () => {
			if (closed) return;
			closed = true;
			if (syncRunBytes > 0) fsSync.closeSync(descriptor);
			else await closeAsync(descriptor);
		},
	};
}
