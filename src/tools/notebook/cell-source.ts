import { arrayElements, memberValue, rootStart, type TextSpan } from "./json-spans.js";

/** Splits text into nbformat's array of lines, each keeping its "\n" (the last one may lack it). */
export function sourceLines(text: string): string[] {
	return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** Where each cell object sits in the notebook's raw text. */
export function cellSpans(text: string): TextSpan[] {
	const cells = memberValue(text, rootStart(text), "cells");
	if (!cells) throw new Error('the notebook has no "cells" array');
	return arrayElements(text, cells.start);
}

/** The whitespace that starts the line holding `position`. */
function indentOf(text: string, position: number): string {
	const lineStart = text.lastIndexOf("\n", position - 1) + 1;
	return /^[ \t]*/.exec(text.slice(lineStart))?.[0] ?? "";
}

/** One level of the file's indentation: how far the first member of the root object is indented. */
function indentUnit(text: string): string {
	const root = rootStart(text);
	const firstNewline = text.indexOf("\n", root);
	return firstNewline < 0 ? " " : indentOf(text, firstNewline + 1) || " ";
}

/** Writes a string as JSON in the file's own style: non-ASCII escaped only if the file does so. */
function jsonString(value: string, asciiOnly: boolean): string {
	const json = JSON.stringify(value);
	return asciiOnly
		? json.replace(/[\u0080-\uffff]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`)
		: json;
}

/** True when a file escapes every non-ASCII character (Python's json default, `ensure_ascii`). */
function escapesNonAscii(text: string): boolean {
	return (
		!/[^\u0000-\u007f]/.test(text) &&
		/\\u(?:00[89a-fA-F][0-9a-fA-F]|0[1-9a-fA-F][0-9a-fA-F]{2}|[1-9a-fA-F][0-9a-fA-F]{3})/.test(text)
	);
}

/**
 * `source` written the way the original was: a JSON string stays a string; an array of lines stays
 * an array, one line per row at the original's indentation (or on one line if it was on one line).
 */
function serializeSource(text: string, span: TextSpan, source: string): string {
	const raw = text.slice(span.start, span.end);
	const asciiOnly = escapesNonAscii(text);
	if (!raw.startsWith("[")) return jsonString(source, asciiOnly);
	const items = sourceLines(source).map((line) => jsonString(line, asciiOnly));
	if (items.length === 0) return "[]";
	const newline = text.includes("\r\n") ? "\r\n" : "\n";
	const elements = arrayElements(text, span.start);
	const first = elements[0];
	if (first && !text.slice(span.start, first.start).includes("\n")) {
		const separator = /,\s/.test(raw) ? ", " : ",";
		return `[${items.join(separator)}]`;
	}
	const elementIndent = first ? indentOf(text, first.start) : indentOf(text, span.start) + indentUnit(text);
	const closingIndent = first ? indentOf(text, span.end - 1) : indentOf(text, span.start);
	return `[${newline}${items.map((item) => elementIndent + item).join(`,${newline}`)}${newline}${closingIndent}]`;
}

/**
 * The notebook text with the `source` of cell `index` (0-based) replaced by `source`, every other
 * byte unchanged. Throws when the text is not notebook JSON or the cell has no `source`.
 */
export function replaceCellSource(text: string, index: number, source: string): string {
	const cell = cellSpans(text)[index];
	if (!cell) throw new Error(`the notebook has no cell ${index + 1}`);
	const span = memberValue(text, cell.start, "source");
	if (!span) throw new Error(`cell ${index + 1} has no "source"`);
	return text.slice(0, span.start) + serializeSource(text, span, source) + text.slice(span.end);
}
