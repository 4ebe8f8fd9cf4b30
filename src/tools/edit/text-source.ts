import { countLineFeeds } from "./line-breaks.js";

/**
 * Line-level access to a text held either as a string or as UTF-8 bytes, so the diff and the
 * line numbers of an edit can be computed without decoding a large file: offsets are in the
 * source's own units (UTF-16 code units or bytes).
 */
export interface TextSource {
	/** Length in the source's units. */
	readonly length: number;
	/** Offset of the first `\n` at or after `from`, or -1. */
	indexOfNewline(from: number): number;
	/** Offset of the last `\n` at or before `from` (from ≥ 0), or -1. */
	lastIndexOfNewline(from: number): number;
	/** Whether the unit at `index` is `\r`. */
	isCarriageReturn(index: number): boolean;
	/** The text of `[from, to)`. */
	slice(from: number, to: number): string;
	/** Counts `\n` in `[from, to)`. */
	countNewlines(from: number, to: number): number;
}

/** Counts `\n` in `text[from, to)`. */
export function countNewlines(text: string, from: number, to: number): number {
	let count = 0;
	for (let index = text.indexOf("\n", from); index !== -1 && index < to; index = text.indexOf("\n", index + 1)) count++;
	return count;
}

/** A string as a `TextSource`. */
export function stringSource(text: string): TextSource {
	return {
		length: text.length,
		indexOfNewline: (from) => text.indexOf("\n", from),
		lastIndexOfNewline: (from) => text.lastIndexOf("\n", from),
		isCarriageReturn: (index) => text.charCodeAt(index) === 13,
		slice: (from, to) => text.slice(from, to),
		countNewlines: (from, to) => countNewlines(text, from, to),
	};
}

/** UTF-8 bytes as a `TextSource` (valid UTF-8, so a `\n` byte is always a line break). */
export function bytesSource(bytes: Buffer): TextSource {
	return {
		length: bytes.length,
		indexOfNewline: (from) => (from >= bytes.length ? -1 : bytes.indexOf(10, from)),
		// Buffer#lastIndexOf treats a negative offset as counted from the end; a string does not.
		lastIndexOfNewline: (from) => (from < 0 ? -1 : bytes.lastIndexOf(10, from)),
		isCarriageReturn: (index) => bytes[index] === 13,
		slice: (from, to) => bytes.toString("utf8", from, to),
		countNewlines: (from, to) => countLineFeeds(bytes, from, to),
	};
}

/** 1-based line numbers of ascending `positions`, in one pass up to the last one. */
export function lineNumbersIn(source: TextSource, positions: readonly number[]): number[] {
	const result: number[] = [];
	let line = 1;
	let scanned = 0;
	for (const position of positions) {
		if (position > scanned) {
			line += source.countNewlines(scanned, position);
			scanned = position;
		}
		result.push(line);
	}
	return result;
}

/**
 * The line ending inserted text at `position` takes: that of the line being edited (or, on a last
 * line without one, of the line before). In a file with one style that is the file's style; in a
 * mixed file it keeps each region as it was. `\n` when the text has no line break at all.
 */
export function lineEndingNear(source: TextSource, position: number): "\n" | "\r\n" {
	let newline = source.indexOfNewline(position);
	if (newline === -1) newline = source.lastIndexOfNewline(Math.min(position, source.length - 1));
	return newline > 0 && source.isCarriageReturn(newline - 1) ? "\r\n" : "\n";
}
