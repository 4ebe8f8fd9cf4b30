const NEWLINE = 0x0a;

/** Longest output line held whole. Default for `GrepOutputSplitter`. */
export const DEFAULT_MAX_OUTPUT_LINE_BYTES = 1024 * 1024;
/** Bytes kept on each side of a match in a longer line: what grep shows of a line (500 characters) fits. */
const WINDOW_BYTES = 200;

/** Bytes of a long line's start its header is read from: a path (at most 4 KiB on Linux) and two numbers fit. */
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

/** The parts of a grep output line before its text: `path\0line:column:` or `path\0line-`. */
interface LineHeader {
	/** `path\0` (the path and its terminator), or empty when the line has none. */
	path: Buffer;
	/** The line number's digits. */
	lineNumber: string;
	/** The 1-based byte column of the match; undefined on a context line. */
	column: number | undefined;
	/** Where the line's text starts. */
	textStart: number;
}

function readDigits(line: Buffer, from: number): { digits: string; end: number } {
	let end = from;
	while (end < line.length && (line[end] as number) >= 0x30 && (line[end] as number) <= 0x39) end++;
	return { digits: line.toString("latin1", from, end), end };
}

/** Parses the header of ripgrep's `--null --line-number --column` output line. */
function parseHeader(head: Buffer): LineHeader {
	const pathEnd = head.indexOf(0);
	if (pathEnd === -1) return { path: Buffer.alloc(0), lineNumber: "", column: undefined, textStart: 0 };
	const line = readDigits(head, pathEnd + 1);
	const path = Buffer.from(head.subarray(0, pathEnd + 1));
	if (head[line.end] !== 0x3a) return { path, lineNumber: line.digits, column: undefined, textStart: line.end + 1 };
	const column = readDigits(head, line.end + 1);
	return { path, lineNumber: line.digits, column: Number(column.digits), textStart: column.end + 1 };
}

/**
 * A line over the limit, read on: only its header and a window around the match (or its start,
 * for a context line) are kept, so its memory does not grow with its length.
 */
class LongLine {
	private readonly header: LineHeader;
	private readonly windowStart: number;
	private readonly windowEnd: number;
	private readonly window: Buffer[] = [];
	private length = 0;

	/** @param pieces The line's first bytes, in order (their header is read from the first `HEADER_BYTES`). */
	constructor(pieces: readonly Buffer[]) {
		this.header = parseHeader(headOf(pieces));
		const focus = this.header.textStart + Math.max(0, (this.header.column ?? 1) - 1);
		this.windowStart = Math.max(this.header.textStart, focus - WINDOW_BYTES);
		this.windowEnd = focus + WINDOW_BYTES;
		for (const piece of pieces) this.feed(piece);
	}

	/** Takes the next bytes of the line, keeping those inside the window. */
	feed(bytes: Buffer): void {
		const from = Math.max(this.windowStart, this.length);
		const to = Math.min(this.windowEnd, this.length + bytes.length);
		if (from < to) this.window.push(Buffer.from(bytes.subarray(from - this.length, to - this.length)));
		this.length += bytes.length;
	}

	/**
	 * The line as ripgrep would have printed it with only the window of its text, marked with how
	 * many bytes were left out on each side; the column points at the same match in the window.
	 */
	finish(): Buffer {
		const { header } = this;
		const before = this.windowStart - header.textStart;
		const after = Math.max(0, this.length - this.windowEnd);
		const prefix = before > 0 ? `[… ${before} bytes of this line left out] ` : "";
		const suffix = after > 0 ? ` [… ${after} bytes of this line left out]` : "";
		const focus = header.textStart + Math.max(0, (header.column ?? 1) - 1);
		const numbers =
			header.column === undefined
				? `${header.lineNumber}-`
				: `${header.lineNumber}:${focus - this.windowStart + 1 + Buffer.byteLength(prefix)}:`;
		const start = header.path.length > 0 ? [header.path, Buffer.from(numbers)] : [];
		return Buffer.concat([...start, Buffer.from(prefix), ...this.window, Buffer.from(suffix)]);
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

	/** @param maxLineBytes Longest line held whole. Default: `DEFAULT_MAX_OUTPUT_LINE_BYTES` (1 MiB). */
	constructor(private readonly maxLineBytes = DEFAULT_MAX_OUTPUT_LINE_BYTES) {}

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
			this.long = new LongLine(this.pending);
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
