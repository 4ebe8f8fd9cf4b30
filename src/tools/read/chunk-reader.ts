import type { ReadableFile } from "../../workspace/index.js";

/**
 * Bytes of one chunk of a scan: two of them fit a core's L2 cache (512 KiB on the machines
 * measured), so the kernel copies into memory the cache holds and the count reads it from there.
 * With 1 MiB chunks the same 220 MB cost ~100 ms of system time against ~25 ms (BENCHMARKS.md).
 */
export const SCAN_CHUNK_BYTES = 256 * 1024;

/** Bytes already read from a file, starting at byte `position`. */
export interface ReadBytes {
	/** File position of `bytes[0]`. */
	position: number;
	/** The bytes. */
	bytes: Buffer;
}

interface PendingRead {
	position: number;
	slot: number;
	done: Promise<number>;
}

/**
 * Reads a file's chunks for a scan, at most two buffers of `SCAN_CHUNK_BYTES` however large the file: a chunk
 * stays valid until the next `read`. `readAhead` starts the next chunk's read on the
 * thread pool while the caller scans the current one, so a scan of many chunks costs about the
 * larger of the copying and the scanning, not their sum. One read is in flight at a time, so any
 * `ReadableFile` serves. Bytes read before (`head`) are handed out instead of read again.
 */
export class ChunkReader {
	private readonly buffers: (Buffer | undefined)[] = [undefined, undefined];
	/** The slot of the chunk handed out last; a read ahead goes to the other one. */
	private current = 1;
	private pending: PendingRead | undefined;

	constructor(
		private readonly file: ReadableFile,
		/** Reads stop here: the size the read began with. */
		private readonly end: number,
		private readonly head?: ReadBytes,
	) {}

	/** Up to `length` bytes at `position` (fewer at the end); empty at or past the end. */
	async read(position: number, length = SCAN_CHUNK_BYTES): Promise<Buffer> {
		const { head } = this;
		if (head && position >= head.position && position < head.position + head.bytes.length) {
			return head.bytes.subarray(position - head.position);
		}
		const pending = this.pending;
		this.pending = undefined;
		if (pending?.position === position) {
			this.current = pending.slot;
			return this.bufferOf(pending.slot).subarray(0, await pending.done);
		}
		if (pending) await settled(pending.done);
		// The chunk handed out before is done with: its buffer takes this one (the other stays unmade
		// unless something is read ahead).
		const bytesRead = await this.readInto(this.current, position, length);
		return this.bufferOf(this.current).subarray(0, bytesRead);
	}

	/** Starts reading the chunk at `position` into the buffer not handed out last; `read(position)` takes it. */
	readAhead(position: number): void {
		if (this.pending || position >= this.end) return;
		const slot = 1 - this.current;
		const done = this.readInto(slot, position, SCAN_CHUNK_BYTES);
		// Seen by the `read` that takes it; until then a failure must not count as unhandled.
		done.catch(() => undefined);
		this.pending = { position, slot, done };
	}

	/** Waits for a read still in flight, so the file can be closed (its failure is nobody's now). */
	async settle(): Promise<void> {
		const pending = this.pending;
		this.pending = undefined;
		if (pending) await settled(pending.done);
	}

	private readInto(slot: number, position: number, length: number): Promise<number> {
		const buffer = this.bufferOf(slot);
		const bounded = Math.max(0, Math.min(length, buffer.length, this.end - position));
		return this.file.read({ buffer, offset: 0, length: bounded, position });
	}

	private bufferOf(slot: number): Buffer {
		let buffer = this.buffers[slot];
		if (!buffer) {
			buffer = Buffer.allocUnsafe(Math.min(SCAN_CHUNK_BYTES, Math.max(1, this.end)));
			this.buffers[slot] = buffer;
		}
		return buffer;
	}
}

async function settled(done: Promise<number>): Promise<void> {
	try {
		await done;
	} catch {
		// Read ahead for a chunk nobody asked for after all.
	}
}
