import { ToolError } from "../../engine/errors.js";
import { indentOf, type Occurrence, reindentLines } from "./indentation.js";
import type { MatchContext } from "./match-context.js";
import { isBlank, mapLookAlikes } from "./normalize.js";

/**
 * The inner-whitespace rung: old_string differs from the file only in blanks inside its lines —
 * runs of spaces, spaces around brackets, commas and operators, indentation
 * (`function myFunc(a, b) {` against `  function  myFunc( a, b ) {`). Blanks between two letters
 * or digits must be there on both sides (`a b` is not `ab`); any other blank is optional. Line
 * breaks must correspond one to one. Each line is compared in a canonical form that keeps, for
 * every character, its offset in the file, so a match replaces exactly the file's bytes it covers.
 */

/** Most line comparisons one search may make: repetitive input ends with an error, not a hang. */
const MAX_COMPARISONS = 20_000_000;

/** A line in canonical form, with each character's offset in the original line. */
interface CanonicalLine {
	text: string;
	/** `origins[i]`: offset in the line of canonical character i (a run's start for a kept blank). */
	origins: number[];
}

function isWordCode(code: number): boolean {
	if (code < 0x80) {
		return (
			(code >= 48 && code <= 57) ||
			(code >= 65 && code <= 90) ||
			(code >= 97 && code <= 122) ||
			code === 95 ||
			code === 36
		);
	}
	return /[\p{L}\p{N}]/u.test(String.fromCharCode(code));
}

/** `line` (no line break) in canonical form: look-alikes mapped, blanks dropped or kept as one space. */
export function canonicalLine(line: string): CanonicalLine {
	const mapped = mapLookAlikes(line);
	let end = mapped.length;
	while (end > 0 && (isBlank(mapped.charCodeAt(end - 1)) || mapped.charCodeAt(end - 1) === 13)) end--;
	let index = 0;
	while (index < end && isBlank(mapped.charCodeAt(index))) index++;
	const characters: string[] = [];
	const origins: number[] = [];
	let previousIsWord = false;
	while (index < end) {
		const code = mapped.charCodeAt(index);
		if (isBlank(code)) {
			const runStart = index;
			while (index < end && isBlank(mapped.charCodeAt(index))) index++;
			if (previousIsWord && isWordCode(mapped.charCodeAt(index))) {
				characters.push(" ");
				origins.push(runStart);
			}
			continue;
		}
		characters.push(mapped[index] as string);
		origins.push(index);
		previousIsWord = isWordCode(code);
		index++;
	}
	return { text: characters.join(""), origins };
}

/** old_string as canonical lines, with what its edges require of the file. */
interface NeedleLines {
	raw: string[];
	keys: string[];
	finalNewline: boolean;
	/** It starts with blanks before a letter or digit: the file must not have one glued before the match. */
	detachedStart: boolean;
	/** It ends with blanks after a letter or digit: the file must not have one glued after the match. */
	detachedEnd: boolean;
}

/** old_string split into canonical lines; a final line break is noted, not kept as a line. */
function needleLinesOf(needle: string): NeedleLines {
	const finalNewline = needle.endsWith("\n");
	const raw = (finalNewline ? needle.slice(0, -1) : needle).split("\n");
	const keys = raw.map((line) => canonicalLine(line).text);
	const firstKey = keys[0] ?? "";
	const lastKey = keys[keys.length - 1] ?? "";
	const firstRaw = raw[0] ?? "";
	const lastRaw = raw[raw.length - 1] ?? "";
	return {
		raw,
		keys,
		finalNewline,
		detachedStart: isBlank(firstRaw.charCodeAt(0)) && isWordCode(firstKey.charCodeAt(0)),
		detachedEnd: isBlank(lastRaw.charCodeAt(lastRaw.length - 1)) && isWordCode(lastKey.charCodeAt(lastKey.length - 1)),
	};
}

/** A match's first and last columns in the file, or undefined. */
interface Columns {
	startColumn: number;
	endColumn: number;
}

/** Whether a match of `key` at `at` in `line` respects the needle's detached edges. */
function edgesFit(
	line: string,
	at: number,
	length: number,
	needle: NeedleLines,
	first: boolean,
	last: boolean,
): boolean {
	if (first && needle.detachedStart && at > 0 && isWordCode(line.charCodeAt(at - 1))) return false;
	if (last && needle.detachedEnd && isWordCode(line.charCodeAt(at + length))) return false;
	return true;
}

/** Every match of a one-line needle in `line`. */
function matchesInLine(line: CanonicalLine, needle: NeedleLines): Columns[] {
	const key = needle.keys[0] as string;
	const found: Columns[] = [];
	for (let at = line.text.indexOf(key); at !== -1; at = line.text.indexOf(key, at + Math.max(1, key.length))) {
		if (needle.finalNewline && at + key.length !== line.text.length) continue;
		if (!edgesFit(line.text, at, key.length, needle, true, true)) continue;
		found.push({ startColumn: line.origins[at] ?? 0, endColumn: (line.origins[at + key.length - 1] ?? 0) + 1 });
	}
	return found;
}

/** The match of a needle of several lines whose first line is the file's line `first`, or undefined. */
function matchAt(lines: readonly CanonicalLine[], first: number, needle: NeedleLines): Columns | undefined {
	const { keys, finalNewline } = needle;
	const count = keys.length;
	const head = lines[first] as CanonicalLine;
	const firstKey = keys[0] as string;
	const lastKey = keys[count - 1] as string;
	if (!head.text.endsWith(firstKey)) return undefined;
	const startIndex = head.text.length - firstKey.length;
	if (!edgesFit(head.text, startIndex, firstKey.length, needle, true, false)) return undefined;
	for (let offset = 1; offset < count - 1; offset++) {
		if (lines[first + offset]?.text !== keys[offset]) return undefined;
	}
	const tail = lines[first + count - 1] as CanonicalLine;
	if (finalNewline ? tail.text !== lastKey : !tail.text.startsWith(lastKey)) return undefined;
	if (!edgesFit(tail.text, 0, lastKey.length, needle, false, true)) return undefined;
	// A needle that starts with a line break starts after the last character of the line.
	const startColumn =
		startIndex < head.origins.length ? (head.origins[startIndex] ?? 0) : (head.origins.at(-1) ?? -1) + 1;
	const endColumn = lastKey === "" ? 0 : (tail.origins[lastKey.length - 1] ?? 0) + 1;
	return { startColumn, endColumn };
}

/**
 * new_string fitted to the place: its first line goes where the match starts (after the file's
 * indentation, or mid-line), so the blanks old_string's first line began with are dropped; the
 * lines after it are re-indented as the indentation rung does, from the first line's indentation
 * too when the match starts a line.
 */
function fitReplacement(
	replacement: string,
	needleLines: readonly string[],
	fileLines: readonly string[],
	startsLine: boolean,
): string {
	const [firstLine = "", ...rest] = replacement.split("\n");
	const needleIndent = indentOf(needleLines[0] ?? "");
	const head =
		needleIndent !== "" && firstLine.startsWith(needleIndent) ? firstLine.slice(needleIndent.length) : firstLine;
	if (rest.length === 0) return head;
	// Pairs the re-indenting learns from: the first line's only when the match starts it.
	const from = startsLine ? needleLines : ["", ...needleLines.slice(1)];
	const reindented = reindentLines(["", ...rest], from, fileLines).slice(1);
	return [head, ...reindented].join("\n");
}

/** The canonical lines of a context, computed once per context. */
function canonicalLinesOf(context: MatchContext): CanonicalLine[] {
	const text = context.content;
	const starts = context.lineStarts();
	return context.memo("canonical-lines", () =>
		starts.map((start, index) => {
			const next = starts[index + 1];
			return canonicalLine(text.slice(start, next === undefined ? text.length : next - 1));
		}),
	);
}

/** The inner-whitespace rung (see the file's comment): every match, with new_string fitted to it. */
export function findByInnerWhitespace(context: MatchContext, needle: string, replacement: string): Occurrence[] {
	const lines = needleLinesOf(needle);
	const { keys } = lines;
	if (keys.every((key) => key === "")) return [];
	const fileLines = canonicalLinesOf(context);
	// A middle line must be equal, so the longest one makes the quick test for each place.
	let probe = -1;
	for (let index = 1; index < keys.length - 1; index++) {
		if (probe === -1 || (keys[index] as string).length > (keys[probe] as string).length) probe = index;
	}
	const occurrences: Occurrence[] = [];
	let comparisons = 0;
	for (let first = 0; first + keys.length <= fileLines.length; first++) {
		if (probe !== -1 && fileLines[first + probe]?.text !== keys[probe]) continue;
		comparisons += keys.length;
		if (comparisons > MAX_COMPARISONS) {
			throw new ToolError(
				"old_string is too repetitive to place with whitespace ignored in a file this size. Copy it exactly from the file, with a distinctive line in it.",
			);
		}
		const found =
			keys.length === 1
				? matchesInLine(fileLines[first] as CanonicalLine, lines)
				: [matchAt(fileLines, first, lines)].filter((columns) => columns !== undefined);
		for (const columns of found) occurrences.push(occurrenceAt(context, first, columns, lines, replacement));
	}
	return occurrences;
}

/** The span of a match in the context and new_string fitted to it. */
function occurrenceAt(
	context: MatchContext,
	first: number,
	columns: Columns,
	needle: NeedleLines,
	replacement: string,
): Occurrence {
	const text = context.content;
	const starts = context.lineStarts();
	const count = needle.keys.length;
	const lineStart = starts[first] ?? 0;
	const start = lineStart + columns.startColumn;
	const afterLast = starts[first + count];
	const end = needle.finalNewline ? (afterLast ?? text.length) : (starts[first + count - 1] ?? 0) + columns.endColumn;
	const startsLine = text.slice(lineStart, start).trim() === "";
	let fitted = fitReplacement(replacement, needle.raw, text.slice(lineStart, end).split("\n"), startsLine);
	// The file's last line has no line break to replace; do not add one.
	if (needle.finalNewline && afterLast === undefined && !text.endsWith("\n") && fitted.endsWith("\n")) {
		fitted = fitted.slice(0, -1);
	}
	return { start, end, replacement: fitted };
}
