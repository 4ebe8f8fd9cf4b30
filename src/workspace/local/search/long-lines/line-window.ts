/** Bytes kept on each side of a match in a long line: what grep shows of a line (500 characters) fits. */
const WINDOW_BYTES = 200;

/** The parts of a grep output line before its text: `path\0line:column:` or `path\0line-` (with `--byte-offset`, the offset after them). */
export interface LineHeader {
	/** `path\0` (the path and its terminator), or empty when the line has none. */
	path: Buffer;
	/** The line number's digits. */
	lineNumber: string;
	/** The 1-based byte column of the match; undefined on a context line. */
	column: number | undefined;
	/** The digits of the line's byte offset in the file, when ripgrep was asked for it (`--byte-offset`). */
	offset: string | undefined;
	/** Where the line's text starts. */
	textStart: number;
}

function readDigits(line: Buffer, from: number): { digits: string; end: number } {
	let end = from;
	while (end < line.length && (line[end] as number) >= 0x30 && (line[end] as number) <= 0x39) end++;
	return { digits: line.toString("latin1", from, end), end };
}

/**
 * Parses the header of ripgrep's `--null --line-number --column` output line (`byteOffsets`: run
 * with `--byte-offset` too, which adds the line's offset after the numbers).
 */
export function parseHeader(head: Buffer, byteOffsets: boolean): LineHeader {
	const pathEnd = head.indexOf(0);
	if (pathEnd === -1)
		return { path: Buffer.alloc(0), lineNumber: "", column: undefined, offset: undefined, textStart: 0 };
	const line = readDigits(head, pathEnd + 1);
	const path = Buffer.from(head.subarray(0, pathEnd + 1));
	const isMatch = head[line.end] === 0x3a;
	const column = isMatch ? readDigits(head, line.end + 1) : undefined;
	let textStart = (column ?? line).end + 1;
	let offset: string | undefined;
	if (byteOffsets) {
		const digits = readDigits(head, textStart);
		offset = digits.digits;
		textStart = digits.end + 1;
	}
	return { path, lineNumber: line.digits, column: column && Number(column.digits), offset, textStart };
}

/**
 * The bytes of a long line's text kept around its match (`column`, 1-based), or at its start
 * for a context line (no column): `start` inclusive, `end` exclusive, counted from the text's start.
 */
export function textWindowOf(column: number | undefined): { start: number; end: number } {
	const focus = Math.max(0, (column ?? 1) - 1);
	return { start: Math.max(0, focus - WINDOW_BYTES), end: focus + WINDOW_BYTES };
}

/**
 * A long line as ripgrep would have printed it with only the window of its text (`window`, the
 * bytes from `textWindowOf`'s start, as far as the line goes), marked with how many bytes were
 * left out on each side; the column points at the same match in the window. `textLength`: the
 * bytes of the whole text (up to the `\n`, a `\r` before it included).
 */
export function cutLineBytes(header: LineHeader, window: readonly Buffer[], textLength: number): Buffer {
	const kept = textWindowOf(header.column);
	const before = kept.start;
	const after = Math.max(0, textLength - kept.end);
	const prefix = before > 0 ? `[… ${before} bytes of this line left out] ` : "";
	const suffix = after > 0 ? ` [… ${after} bytes of this line left out]` : "";
	// The offset field stays where ripgrep put it, so the line parses as the others of its search.
	const offset = (separator: string) => (header.offset === undefined ? "" : `${header.offset}${separator}`);
	const numbers =
		header.column === undefined
			? `${header.lineNumber}-${offset("-")}`
			: `${header.lineNumber}:${Math.max(0, header.column - 1) - kept.start + 1 + Buffer.byteLength(prefix)}:${offset(":")}`;
	const start = header.path.length > 0 ? [header.path, Buffer.from(numbers)] : [];
	return Buffer.concat([...start, Buffer.from(prefix), ...window, Buffer.from(suffix)]);
}
