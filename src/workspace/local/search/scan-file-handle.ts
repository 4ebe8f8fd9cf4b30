import { closeSync, constants, openSync, readSync } from "node:fs";
import { setImmediate as nextTurn } from "node:timers/promises";

/** The part of a file handle the walker's content search uses. */
export interface ScanFileHandle {
	/** Reads up to `length` bytes at the current position into `buffer` at `offset`; 0 at the end. */
	read(buffer: Buffer, offset: number, length: number, position: null): Promise<{ bytesRead: number }>;
	/** Closes the file. */
	close(): Promise<void>;
}

/** Longest stretch of synchronous reads before the event loop gets a turn, in ms. */
const SLICE_MS = 4;
let sliceStart = 0;

/**
 * Lets timers, I/O and abort signals run once a slice of synchronous work is used up. The slice
 * is the process's, not one search's: what it protects is the one event loop.
 */
async function yieldWhenSliceIsUsed(): Promise<void> {
	if (performance.now() - sliceStart < SLICE_MS) return;
	await nextTurn();
	sliceStart = performance.now();
}

/**
 * Opens a file for the walker's content search, read with synchronous calls in time slices.
 * Searching a tree is mostly small files from the page cache, where each asynchronous open, read
 * and close is a thread-pool round trip that costs far more than the system call (20,000 small
 * files: 1.8 s asynchronously, 0.23 s read synchronously). `O_NONBLOCK` keeps a file swapped for
 * a FIFO after the listing from blocking the process (its read then fails with EAGAIN, and the
 * search skips it as it skips any unreadable file).
 */
export async function openForScan(path: string): Promise<ScanFileHandle> {
	await yieldWhenSliceIsUsed();
	const descriptor = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
	return {
		read: async (buffer, offset, length) => {
			await yieldWhenSliceIsUsed();
			return { bytesRead: readSync(descriptor, buffer, offset, length, null) };
		},
		close: async () => closeSync(descriptor),
	};
}
