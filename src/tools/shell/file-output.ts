import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { copyFile, truncate } from "node:fs/promises";
import { tmpdir } from "node:os";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES } from "../../engine/index.js";
import {
	describeOutput,
	ImportantLines,
	importantLinesOfFile,
	outputFilePath,
	renderTail,
	type ShellOutput,
	type TailBudget,
	withKeptLines,
} from "../../workspace/index.js";
import {
	registerOutputFile,
	releaseOutputFile,
	releaseSmallOutputFile,
	settleOutputFile,
} from "../../workspace/local/index.js";
import { countFileNewlines, countNewlines } from "./line-count.js";
import type { ShellOutputBufferOptions } from "./output-buffer.js";
import { sinkOutputFile } from "./output-sink.js";

/**
 * Up to this size the lines are counted (and scanned for the lines worth keeping) synchronously,
 * in one pass: a few reads from the page cache cost less than the thread-pool round trips (or
 * the `wc` process) of the asynchronous count and scan.
 */
const syncCountBytes = 4 * 1024 * 1024;
/**
 * Chunk of that pass. The lines kept do not depend on the chunks (semantic-tail.ts), so it need not
 * be the asynchronous scan's. A small buffer: a fresh one of the output's size (up to 1 MiB) cost
 * its page faults in the call (a first `seq 1 100000`: 1.8 ms to read 540 KB into it, 0.3 ms
 * through 64 KiB).
 */
const syncPassBytes = 64 * 1024;

/**
 * A command's output written by the command itself straight into a temp file (the shell's stdout
 * and stderr are that file), so not one byte passes through toolbelt's process on the way: the
 * tail the model sees is read back from the end of the file, and the lines are counted natively.
 * The file is the full-output file when the output does not fit the budget, and is removed when
 * it does.
 */
export class FileShellOutput {
	/** Where the output goes. */
	readonly path: string;
	/** Opened for appending: give it to the shell as stdout and stderr. */
	readonly descriptor: number;
	private readonly folder: string;
	private readonly readDescriptor: number;
	private readonly budget: TailBudget;
	private readonly tail: Buffer;
	private closed = false;

	private constructor(
		path: string,
		folder: string,
		descriptor: number,
		readDescriptor: number,
		options: ShellOutputBufferOptions,
	) {
		this.path = path;
		this.folder = folder;
		this.descriptor = descriptor;
		this.readDescriptor = readDescriptor;
		this.budget = { maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES, maxLines: options.maxLines ?? DEFAULT_MAX_LINES };
		// Sanitizing shrinks output (colour codes, redraws): read more raw bytes than the budget.
		this.tail = Buffer.allocUnsafe(options.tailBytes ?? Math.max(4 * this.budget.maxBytes, 256 * 1024));
	}

	/** Creates the temp file. Throws when it cannot (the caller then reads the output through a pipe). */
	static create(options: ShellOutputBufferOptions = {}): FileShellOutput {
		const folder = options.tempDir ?? tmpdir();
		const path = outputFilePath(folder);
		// Exclusive (the temp folder may be shared) and append-only: writers that share the file
		// (the shell, its background jobs) never overwrite each other, and go on writing at the end
		// after the file is emptied (see `sinkOutputFile`).
		const descriptor = openSync(
			path,
			constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_APPEND,
			0o600,
		);
		// Removed when toolbelt exits, also if the call never finishes; never removed to make room while written.
		registerOutputFile(path, { live: true });
		try {
			return new FileShellOutput(path, folder, descriptor, openSync(path, "r"), options);
		} catch (error) {
			closeSync(descriptor);
			void releaseOutputFile(path).catch(() => {});
			throw error;
		}
	}

	/** Bytes written so far. */
	size(): number {
		return fstatSync(this.readDescriptor).size;
	}

	/** The sanitized tail within the budget, for progress updates. */
	preview(): string {
		return this.readTail(this.size()).content;
	}

	/**
	 * Reads the output as it stands now and decides what the model sees. `writerPids` are
	 * processes that may go on writing to the file (the relay of background jobs' output): what
	 * they write from now on is not part of this result, so a full-output file is then a copy cut
	 * at this size, and the file itself is handed to `sinkOutputFile`.
	 */
	async finish(writerPids: readonly number[]): Promise<ShellOutput> {
		let keptPath: string | undefined;
		let small = false;
		try {
			const size = this.size();
			small = size <= this.tail.length && writerPids.length === 0;
			const tail = this.readTail(size);
			const tailLength = Math.min(size, this.tail.length);
			const truncated = tail.truncated || tail.cut || size > this.tail.length;
			const lastByte = tailLength > 0 ? (this.tail[tailLength - 1] ?? -1) : -1;
			// All of the output when it fits the tail; else the lines before the tail are added (up
			// to `syncCountBytes`), or the count of the whole file replaces it.
			let newlines = countNewlines(this.tail.subarray(0, tailLength));
			// Semantic truncation scans the whole file for the lines the model needs from the part cut
			// away (see output/): here when the tail holds all of it or in the counting pass, else below.
			let important: ImportantLines | undefined;
			if (truncated && size <= this.tail.length) {
				important = new ImportantLines();
				important.scan(this.tail.subarray(0, size));
			}
			let fullOutputError: string | undefined;
			if (size > this.tail.length) {
				try {
					if (size <= syncCountBytes) {
						// The tail's lines are counted already: the pass counts only those before it.
						const before = this.countAndScanBefore(size, size - tailLength);
						important = before.important;
						newlines += before.newlines;
					}
					// Exactly up to `size` while someone may still append; natively otherwise.
					else newlines = await countFileNewlines(this.path, writerPids.length > 0 ? size : undefined);
				} catch (error) {
					fullOutputError = `could not count the lines of ${this.path}: ${(error as Error).message}`;
				}
			}
			if (truncated) {
				try {
					keptPath = writerPids.length > 0 ? await this.snapshot(size) : this.path;
				} catch (error) {
					fullOutputError = `could not keep the full output: ${(error as Error).message}`;
				}
			}
			const output = describeOutput({
				tail,
				truncated,
				totalBytes: size,
				newlines,
				lastByte,
				fullOutputPath: keptPath,
				fullOutputError,
			});
			// Lines the tail already shows are left out of the kept ones.
			if (truncated) {
				important ??= await importantLinesOfFile(this.path, size).catch(() => undefined);
				if (important) output.text = withKeptLines(output.text, important, "the full-output file named below");
			}
			return output;
		} finally {
			this.close(writerPids);
			// A file that cannot be removed now is removed when toolbelt exits: no reason to fail the call.
			if (keptPath === this.path) settleOutputFile(this.path);
			else if (small) {
				try {
					releaseSmallOutputFile(this.path);
				} catch {
					// Removed at exit instead.
				}
			} else await releaseOutputFile(this.path).catch(() => {});
		}
	}

	/** Drops the file (when the call fails before it finishes). */
	async discard(writerPids: readonly number[] = []): Promise<void> {
		this.close(writerPids);
		await releaseOutputFile(this.path).catch(() => {});
	}

	private close(writerPids: readonly number[]): void {
		if (this.closed) return;
		this.closed = true;
		closeSync(this.readDescriptor);
		if (writerPids.length > 0) sinkOutputFile(this.descriptor, writerPids);
		else closeSync(this.descriptor);
	}

	/** A copy of the first `size` bytes, kept as the full-output file while the original goes on growing. */
	private async snapshot(size: number): Promise<string> {
		const path = outputFilePath(this.folder);
		// Registered first, so even a partial copy is removed at exit.
		registerOutputFile(path);
		try {
			await copyFile(this.path, path);
			await truncate(path, size);
		} catch (error) {
			await releaseOutputFile(path);
			throw error;
		}
		return path;
	}

	/**
	 * Scans the first `size` bytes for the lines worth keeping and counts the `\n` in the first
	 * `countTo` of them, in one synchronous pass.
	 */
	private countAndScanBefore(size: number, countTo: number): { newlines: number; important: ImportantLines } {
		const important = new ImportantLines();
		const chunk = Buffer.allocUnsafe(Math.min(syncPassBytes, size));
		let newlines = 0;
		for (let position = 0; position < size; ) {
			const bytes = readSync(this.readDescriptor, chunk, 0, Math.min(chunk.length, size - position), position);
			if (bytes === 0) break;
			const read = chunk.subarray(0, bytes);
			if (position < countTo) newlines += countNewlines(read.subarray(0, countTo - position));
			important.scan(read);
			position += bytes;
		}
		return { newlines, important };
	}

	/** Renders the last bytes before `size`. */
	private readTail(size: number) {
		const length = Math.min(size, this.tail.length);
		let read = 0;
		while (read < length) {
			const bytes = readSync(this.readDescriptor, this.tail, read, length - read, size - length + read);
			if (bytes === 0) break;
			read += bytes;
		}
		return renderTail(this.tail.subarray(0, read), size > this.tail.length, this.budget);
	}
}
