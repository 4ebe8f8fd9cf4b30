import { isUtf8 } from "node:buffer";

/** Line-ending style of a text. */
export type LineEndingStyle = "lf" | "crlf" | "mixed" | "none";

/** A file's bytes as text, with what must be restored when writing it back. */
export interface DecodedFile {
	/** The text, without a byte-order mark. */
	text: string;
	/** Whether the bytes started with a UTF-8 byte-order mark. */
	bom: boolean;
}

const BOM = "\ufeff";

/**
 * Decodes a file's bytes as UTF-8, or returns undefined when they are not valid UTF-8 — so such a
 * file is refused rather than rewritten with U+FFFD in place of its bytes.
 */
export function decodeFile(bytes: Buffer): DecodedFile | undefined {
	if (!isUtf8(bytes)) return undefined;
	const text = bytes.toString("utf8");
	return text.startsWith(BOM) ? { text: text.slice(1), bom: true } : { text, bom: false };
}

/** Encodes text for writing back, restoring the byte-order mark if the file had one. */
export function encodeFile(file: DecodedFile): Buffer {
	return Buffer.from(file.bom ? BOM + file.text : file.text, "utf8");
}

/** Whether the text uses `\n`, `\r\n`, both, or has no line break at all. */
export function lineEndingStyle(text: string): LineEndingStyle {
	let lf = 0;
	let crlf = 0;
	for (let index = text.indexOf("\n"); index !== -1; index = text.indexOf("\n", index + 1)) {
		if (index > 0 && text.charCodeAt(index - 1) === 13) crlf++;
		else lf++;
		// Enough to decide "mixed"; counting the rest of a huge file would only cost time.
		if (lf > 0 && crlf > 0) return "mixed";
	}
	if (crlf > 0) return "crlf";
	return lf > 0 ? "lf" : "none";
}

/**
 * The line ending text inserted at `position` should use: the file's own style, and in a file
 * with mixed endings the ending of the line being edited (or the nearest line before it).
 */
export function lineEndingAt(text: string, style: LineEndingStyle, position: number): "\n" | "\r\n" {
	if (style === "crlf") return "\r\n";
	if (style !== "mixed") return "\n";
	let newline = text.indexOf("\n", position);
	if (newline === -1) newline = text.lastIndexOf("\n", position);
	return newline > 0 && text.charCodeAt(newline - 1) === 13 ? "\r\n" : "\n";
}

/** Rewrites every line break of `text` as `ending`. */
export function withLineEnding(text: string, ending: "\n" | "\r\n"): string {
	if (!text.includes("\n")) return text;
	return ending === "\n" ? text.replace(/\r\n/g, "\n") : text.replace(/\r?\n/g, "\r\n");
}

/** Counts `\n` in `text[from, to)`. */
export function countNewlines(text: string, from: number, to: number): number {
	let count = 0;
	for (let index = text.indexOf("\n", from); index !== -1 && index < to; index = text.indexOf("\n", index + 1)) count++;
	return count;
}

/**
 * 1-based line numbers of ascending `positions`, in one pass over the text up to the last one
 * (so many positions cost no more than one).
 */
export function lineNumbersOf(text: string, positions: readonly number[]): number[] {
	const result: number[] = [];
	let line = 1;
	let scanned = 0;
	for (const position of positions) {
		if (position > scanned) {
			line += countNewlines(text, scanned, position);
			scanned = position;
		}
		result.push(line);
	}
	return result;
}

/** Offset where the line holding `position` starts. */
export function lineStartOf(text: string, position: number): number {
	return position <= 0 ? 0 : text.lastIndexOf("\n", position - 1) + 1;
}

/** Offset where the line holding `position` ends, before its line break. */
export function lineEndOf(text: string, position: number): number {
	const newline = text.indexOf("\n", position);
	if (newline === -1) return text.length;
	return newline > 0 && text.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
}

/** The line holding `position`, without its line break, cut to `maxLength` characters. */
export function previewLine(text: string, position: number, maxLength = 120): string {
	const line = text.slice(lineStartOf(text, position), lineEndOf(text, position));
	return line.length > maxLength ? `${line.slice(0, maxLength)}…` : line;
}
