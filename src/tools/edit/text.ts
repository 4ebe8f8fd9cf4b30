import { isUtf8 } from "node:buffer";
import { lineNumbersIn, stringSource } from "./text-source.js";

export { countNewlines } from "./text-source.js";

/** The UTF-8 byte-order mark. */
export const BOM_BYTES = Buffer.from([0xef, 0xbb, 0xbf]);

/** Whether `bytes` are valid UTF-8 (a file that is not is refused, never rewritten with U+FFFD). */
export function isValidUtf8(bytes: Buffer): boolean {
	return isUtf8(bytes);
}

/** Whether the bytes start with a UTF-8 byte-order mark. */
export function hasBom(bytes: Buffer): boolean {
	return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}

/** Rewrites every line break of `text` as `ending`. */
export function withLineEnding(text: string, ending: "\n" | "\r\n"): string {
	if (!text.includes("\n")) return text;
	return ending === "\n" ? text.replace(/\r\n/g, "\n") : text.replace(/\r?\n/g, "\r\n");
}

/**
 * 1-based line numbers of ascending `positions`, in one pass over the text up to the last one
 * (so many positions cost no more than one).
 */
export function lineNumbersOf(text: string, positions: readonly number[]): number[] {
	return lineNumbersIn(stringSource(text), positions);
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
