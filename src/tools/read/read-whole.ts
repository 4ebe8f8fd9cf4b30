import { throwIfAborted } from "../../engine/index.js";
import type { ReadableFile } from "../../workspace/index.js";

/**
 * Bytes the read helpers ask of one `ReadableFile.read`: large enough that scanning 100 MB costs
 * ~100 reads, small enough for a flat RSS.
 */
export const READ_CHUNK_BYTES = 1024 * 1024;

/**
 * The whole content of an already opened file, read through that handle (so what is read is the
 * object that was opened and checked, not whatever the path names by now). Stops at `size` bytes
 * or at the end of the file, whichever comes first.
 */
export async function readWhole(file: ReadableFile, size: number, signal?: AbortSignal): Promise<Buffer> {
	const buffer = Buffer.alloc(size);
	let filled = 0;
	while (filled < size) {
		throwIfAborted(signal);
		const count = await file.read({
			buffer,
			offset: filled,
			length: Math.min(READ_CHUNK_BYTES, size - filled),
			position: filled,
		});
		if (count === 0) break;
		filled += count;
	}
	return filled === size ? buffer : buffer.subarray(0, filled);
}
