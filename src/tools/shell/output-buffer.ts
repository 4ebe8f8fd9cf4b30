import { closeSync, openSync, writeSync, writev } from "node:fs";
import { tmpdir } from "node:os";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES } from "../../engine/index.js";
import {
	describeOutput,
	ImportantLines,
	outputFilePath,
	type RenderedTail,
	renderTail,
	type ShellOutput,
	withKeptLines,
} from "../../workspace/index.js";
import { registerOutputFile, releaseOutputFile } from "../../workspace/local/index.js";
import { countFileNewlines, countNewlines } from "./line-count.js";

export type { ShellOutput } from "../../workspace/index.js";

/** Limits of a `ShellOutputBuffer`. */
export interface ShellOutputBufferOptions {
	/** Most bytes of sanitized output the model sees. Default: 50 KB. */
	maxBytes?: number;
	/** Most lines of sanitized output the model sees. Default: 2000. */
	maxLines?: number;
	/**
	 * Raw bytes kept in memory (the tail). Sanitizing shrinks output (colour codes, redraws), so it
	 * is larger than `maxBytes`. Default: 4 × `maxBytes`, at least 256 KB.
	 */
	tailBytes?: number;
	/** Directory for the full-output file. Default: the OS temp directory. */
	tempDir?: string;
}

// Writes to the full-output file run in the background; past this many bytes in flight the
// producer waits, so memory stays bounded however fast the command prints.
const highWaterBytes = 8 * 1024 * 1024;
const lowWaterBytes = 2 * 1024 * 1024;
const fileBatchBytes = 1024 * 1024;
// Past this much output the lines are counted once at the end, natively, in the full-output file:
// counting every chunk in JavaScript would cost more CPU than everything else together.
const inlineLineCountBytes = 8 * 1024 * 1024;

/**
 * Collects a command's output in bounded memory: counts every byte and line, keeps only a raw tail
 * in a ring buffer, and streams everything to a temp file once the output outgrows the tail. Work
 * per chunk is a copy and a line count; decoding and sanitizing happen on the tail only.
 */
export class ShellOutputBuffer {
	private readonly maxBytes: number;
	private readonly maxLines: number;
	private readonly ring: Buffer;
	private readonly tempDir: string;
	private ringEnd = 0;
	private ringFilled = 0;
	private totalBytes = 0;
	private newlines = 0;
	private countingInline = true;
	private lastByte = -1;
	private filePath: string | undefined;
	private fileDescriptor: number | undefined;
	private filePosition = 0;
	private fileError: string | undefined;
	private bytesInFlight = 0;
	private batch: Buffer[] = [];
	private batchBytes = 0;
	private waiters: (() => void)[] = [];
	private drained: (() => void)[] = [];
	private readonly important = new ImportantLines();

	constructor(options: ShellOutputBufferOptions = {}) {
		this.maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
		this.maxLines = options.maxLines ?? DEFAULT_MAX_LINES;
		this.ring = Buffer.allocUnsafe(options.tailBytes ?? Math.max(4 * this.maxBytes, 256 * 1024));
		this.tempDir = options.tempDir ?? tmpdir();
	}

	/** Takes a chunk. Returns a promise when the caller should wait before sending more. */
	write(chunk: Buffer): void | Promise<void> {
		if (chunk.length === 0) return;
		if (this.fileDescriptor === undefined && this.filePath === undefined && !this.fileError) {
			if (this.totalBytes + chunk.length > this.ring.length) this.openFile();
		}
		this.totalBytes += chunk.length;
		if (this.countingInline && this.totalBytes > inlineLineCountBytes && this.fileDescriptor !== undefined) {
			this.countingInline = false;
		}
		if (this.countingInline) this.newlines += countNewlines(chunk);
		this.lastByte = chunk[chunk.length - 1] ?? -1;
		this.important.scan(chunk);
		this.appendToRing(chunk);
		if (this.fileDescriptor !== undefined) return this.writeToFile(chunk);
	}

	/** Bytes written so far (the whole output, also what left the ring). */
	get bytesWritten(): number {
		return this.totalBytes;
	}

	/**
	 * The raw bytes from `offset` (a count of bytes written) to the end, as far as the ring still
	 * holds them; `omittedBytes` were written after `offset` but left the ring (they are in the
	 * full-output file). `startsMidStream` says the bytes do not begin at `offset`.
	 */
	rawSince(offset: number): { bytes: Buffer; omittedBytes: number; startsMidStream: boolean } {
		const ringStart = this.totalBytes - this.ringFilled;
		const from = Math.max(offset, ringStart);
		const contents = this.ringContents();
		return {
			bytes: contents.subarray(from - ringStart),
			omittedBytes: from - Math.min(offset, from),
			startsMidStream: from > offset,
		};
	}

	/** The full-output file so far, every byte written (undefined while the ring holds everything). */
	async fullOutputSoFar(): Promise<string | undefined> {
		await this.flush();
		return this.fileError ? undefined : this.filePath;
	}

	/** The sanitized tail within the budget, for progress updates. */
	preview(): string {
		return this.truncatedTail().content;
	}

	/** Finishes: waits for the file, decides truncation, writes the file if the tail is not everything. */
	async finish(): Promise<ShellOutput> {
		await this.flush();
		const tail = this.truncatedTail();
		const truncated = tail.truncated || tail.cut || this.totalBytes > this.ring.length;
		if (truncated && this.filePath === undefined) {
			// Output that fits the ring but not the budget: the ring holds all of it.
			this.openFile();
		} else if (!truncated && this.filePath !== undefined) {
			await this.discard();
		}
		if (this.fileDescriptor !== undefined) {
			closeSync(this.fileDescriptor);
			this.fileDescriptor = undefined;
		}
		if (!this.countingInline && this.filePath !== undefined && !this.fileError) {
			this.newlines = await countFileNewlines(this.filePath);
		}
		const output = describeOutput({
			tail,
			truncated,
			totalBytes: this.totalBytes,
			newlines: this.newlines,
			lastByte: this.lastByte,
			fullOutputPath: this.filePath,
			fullOutputError: this.fileError,
		});
		// Semantic truncation: what the model needs from the part cut away comes before the tail.
		if (truncated) output.text = withKeptLines(output.text, this.important, "the full-output file named below");
		return output;
	}

	/** Drops the full-output file (when the call fails before it finishes). */
	async discard(): Promise<void> {
		await this.flush();
		if (this.fileDescriptor !== undefined) closeSync(this.fileDescriptor);
		this.fileDescriptor = undefined;
		if (this.filePath !== undefined) await releaseOutputFile(this.filePath);
		this.filePath = undefined;
	}

	private appendToRing(chunk: Buffer): void {
		const capacity = this.ring.length;
		const bytes = chunk.length > capacity ? chunk.subarray(chunk.length - capacity) : chunk;
		const first = Math.min(bytes.length, capacity - this.ringEnd);
		bytes.copy(this.ring, this.ringEnd, 0, first);
		if (first < bytes.length) bytes.copy(this.ring, 0, first);
		this.ringEnd = (this.ringEnd + bytes.length) % capacity;
		this.ringFilled = Math.min(capacity, this.ringFilled + bytes.length);
	}

	private ringContents(): Buffer {
		if (this.ringFilled < this.ring.length) return this.ring.subarray(0, this.ringEnd);
		return Buffer.concat([this.ring.subarray(this.ringEnd), this.ring.subarray(0, this.ringEnd)]);
	}

	/** The sanitized tail within the budget; `cut` says whether raw lines were left out before sanitizing. */
	private truncatedTail(): RenderedTail {
		return renderTail(this.ringContents(), this.totalBytes > this.ring.length, {
			maxBytes: this.maxBytes,
			maxLines: this.maxLines,
		});
	}

	/** Creates the temp file and writes what the ring holds, which at this point is all output so far. */
	private openFile(): void {
		const path = outputFilePath(this.tempDir);
		try {
			this.fileDescriptor = openSync(path, "wx", 0o600);
			this.filePath = path;
			registerOutputFile(path);
			const contents = this.ringContents();
			writeSync(this.fileDescriptor, contents, 0, contents.length, 0);
			this.filePosition = contents.length;
		} catch (error) {
			this.fileError = `could not write the full output to ${path}: ${(error as Error).message}`;
			if (this.fileDescriptor !== undefined) closeSync(this.fileDescriptor);
			this.fileDescriptor = undefined;
		}
	}

	private writeToFile(chunk: Buffer): void | Promise<void> {
		if (this.fileDescriptor === undefined || this.fileError) return;
		// Chunks arrive at pipe size (64 KB); one write per megabyte costs far fewer system calls.
		this.batch.push(chunk);
		this.batchBytes += chunk.length;
		if (this.batchBytes >= fileBatchBytes) this.writeBatch();
		if (this.bytesInFlight > highWaterBytes) return new Promise((resolve) => this.waiters.push(resolve));
	}

	private writeBatch(): void {
		const descriptor = this.fileDescriptor;
		if (descriptor === undefined || this.batchBytes === 0) return;
		const buffers = this.batch;
		const size = this.batchBytes;
		const position = this.filePosition;
		this.batch = [];
		this.batchBytes = 0;
		this.filePosition += size;
		this.bytesInFlight += size;
		// Positional writes: several may run at once on the thread pool and still land in order.
		writev(descriptor, buffers, position, (error) => {
			this.bytesInFlight -= size;
			if (error && !this.fileError) {
				this.fileError = `writing the full output failed: ${error.message}`;
				this.countingInline = true; // the file cannot be counted now; later lines still are
			}
			if (this.bytesInFlight <= lowWaterBytes) this.release(this.waiters);
			if (this.bytesInFlight === 0) this.release(this.drained);
		});
	}

	private release(list: (() => void)[]): void {
		const pending = list.splice(0);
		for (const resolve of pending) resolve();
	}

	private flush(): Promise<void> {
		this.writeBatch();
		if (this.bytesInFlight === 0) return Promise.resolve();
		return new Promise((resolve) => this.drained.push(resolve));
	}
}
