import { cutLineBytes, type LineHeader, parseHeader, textWindowOf } from "./line-window.js";

const NEWLINE = 0x0a;

/** Longest output line held whole. Default for `GrepOutputSplitter`. */
export const DEFAULT_MAX_OUTPUT_LINE_BYTES = 1024 * 1024;

/** Bytes of a long line's start its header is read from: a path (at most 4 KiB on Linux) and numbers fit. */
const HEADER_BYTES = 64 * 1024;

/** The first `HEADER_BYTES` of a line held in pieces (one copy of that much, not of the whole line). */
function headOf(pieces: readonly Buffer[]): Buffer {
	const taken: Buffer[] = [];
	let bytes = 0;
	for (const piece of pieces) {
		if (bytes >= HEADER_BYTES) break;
		const part = piece.subarray(0, HEADER_BYTES - bytes);
		taken.push(part);
		bytes += part.length;
	}
	return taken.length === 1 ? (taken[0] as Buffer) : Buffer.concat(taken, bytes);
}

/**
 * A line over the limit, read on: only its header and a window around the match (or its start,
 * for a context line) are kept, so its memory does not grow with its length.
 */
class LongLine {
	private readonly header: LineHeader;
	private readonly window: Buffer[] = [];
	private readonly windowStart: number;
	private readonly windowEnd: number;
	private length = 0;

	/**
	 * @param pieces The line's first bytes, in order (their header is read from the first `HEADER_BYTES`).
	 * @param byteOffsets The header holds ripgrep's `--byte-offset` field.
	 */
	constructor(pieces: readonly Buffer[], byteOffsets: boolean) {
		this.header = parseHeader(headOf(pieces), byteOffsets);
		const window = textWindowOf(this.header.column);
		this.windowStart = this.header.textStart + window.start;
		this.windowEnd = this.header.textStart + window.end;
		for (const piece of pieces) this.feed(piece);
	}

	/** Takes the next bytes of the line, keeping those inside the window. */
	feed(bytes: Buffer): void {
		const from = Math.max(this.windowStart, this.length);
		const to = Math.min(this.windowEnd, this.length + bytes.length);
		if (from < to) this.window.push(Buffer.from(bytes.subarray(from - this.length, to - this.length)));
		this.length += bytes.length;
	}

	/** The line with only the window of its text (see `cutLineBytes`). */
	finish(): Buffer {
		return cutLineBytes(this.header, this.window, this.length - this.header.textStart);
	}
}

/**
 * Cuts ripgrep's grep output into lines (raw bytes, without `\n`), as the other splitters do, but
 * holds at most `maxLineBytes` of one line: a longer one (a minified file, a 1 GB single-line
 * file) keeps only a window of its text around the match. Memory stays bounded by the limit,
 * however long the lines ripgrep prints.
 */
export class GrepOutputSplitter {
	private pending: Buffer[] = [];
	private pendingBytes = 0;
	private long: LongLine | undefined;

	/**
	 * @param maxLineBytes Longest line held whole. Default: `DEFAULT_MAX_OUTPUT_LINE_BYTES` (1 MiB).
	 * @param byteOffsets ripgrep was run with `--byte-offset` (a line's header holds its offset).
	 */
	constructor(
		private readonly maxLineBytes = DEFAULT_MAX_OUTPUT_LINE_BYTES,
		private readonly byteOffsets = false,
	) {}

	/** The complete lines that `chunk` finishes, as views into the chunk where possible. */
	push(chunk: Buffer): Buffer[] {
		const lines: Buffer[] = [];
		let start = 0;
		for (;;) {
			const newline = chunk.indexOf(NEWLINE, start);
			if (newline === -1) break;
			if (this.pendingBytes === 0 && this.long === undefined) lines.push(chunk.subarray(start, newline));
			else {
				this.take(chunk.subarray(start, newline));
				lines.push(this.finish());
			}
			start = newline + 1;
		}
		if (start < chunk.length) this.take(chunk.subarray(start), true);
		return lines;
	}

	/** The last line when the output did not end with `\n`. */
	flush(): Buffer[] {
		return this.pendingBytes > 0 || this.long ? [this.finish()] : [];
	}

	/**
	 * Holds the next bytes of an unfinished line. `kept`: they outlive this call, so what is held of
	 * them is copied (the stream may reuse the chunk's memory after `push` returns). A long line
	 * copies only its window (the rest of a 5 MB line is never copied), and goes long without
	 * joining what it held.
	 */
	private take(bytes: Buffer, kept = false): void {
		if (this.long) {
			this.long.feed(bytes);
			return;
		}
		this.pending.push(kept ? Buffer.from(bytes) : bytes);
		this.pendingBytes += bytes.length;
		if (this.pendingBytes > this.maxLineBytes) {
			this.long = new LongLine(this.pending, this.byteOffsets);
			this.pending = [];
			this.pendingBytes = 0;
		}
	}

	private finish(): Buffer {
		const line = this.long ? this.long.finish() : Buffer.concat(this.pending);
		this.long = undefined;
		this.pending = [];
		this.pendingBytes = 0;
		return line;
	}
}
