import { indentOf, type Occurrence, reindentLines } from "./indentation.js";
import type { MatchContext } from "./match-context.js";
import { isBlank, mapLookAlikes } from "./normalize.js";
import { WorkBudget } from "./work-budget.js";

/**
 * The inner-whitespace rung: old_string differs from the file only in blanks inside its lines —
 * runs of spaces, spaces around brackets, commas and operators, indentation
 * (`function myFunc(a, b) {` against `  function  myFunc( a, b ) {`). Blanks between two letters
 * or digits must be there on both sides (`a b` is not `ab`); any other blank is optional. Line
 * breaks must correspond one to one. Each line is compared in a canonical form that keeps, for
 * every character, its offset in the file, so a match replaces exactly the file's bytes it covers.
 */

/**
 * Largest text (a window, or the whole file when no word of old_string narrows the search) this
 * rung canonicalizes, in characters: beyond it the rung is skipped, keeping a miss fast.
 */
const MAX_CHARACTERS = 2 ** 21;

/**
 * A line in canonical form, and where its characters were: canonical text is made of segments
 * copied from the line, and canonical character i of the segment starting at `segmentStarts[k]`
 * was at `segmentOrigins[k] + (i - segmentStarts[k])` (a kept blank is a segment of its own).
 */
interface CanonicalLine {
	text: string;
	segmentStarts: number[];
	segmentOrigins: number[];
}

/** Offset in the original line of canonical character `index` (or just after the last one). */
function originOf(line: CanonicalLine, index: number): number {
	const { segmentStarts, segmentOrigins } = line;
	let low = 0;
	let high = segmentStarts.length - 1;
	while (low < high) {
		const middle = (low + high + 1) >> 1;
		if ((segmentStarts[middle] ?? 0) <= index) low = middle;
		else high = middle - 1;
	}
	return (segmentOrigins[low] ?? 0) + (index - (segmentStarts[low] ?? 0));
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
	// NaN (past the end of a line) lands here as U+0000: not a letter.
	return /[\p{L}\p{N}]/u.test(String.fromCharCode(code));
}

const BLANK_RUN = /[^\S\r\n]+/g;
const OPERATORS = "+-*/&|<>=!";

/**
 * `line` (no line break) in canonical form: look-alikes mapped, leading and trailing blanks
 * dropped, a blank run between two letters or digits (or two equal operators) kept as one space,
 * any other dropped.
 * Runs are found by a regex of one character class (no backtracking), the text built from slices.
 */
export function canonicalLine(line: string): CanonicalLine {
	const mapped = mapLookAlikes(line);
	let end = mapped.length;
	while (end > 0 && (isBlank(mapped.charCodeAt(end - 1)) || mapped.charCodeAt(end - 1) === 13)) end--;
	let begin = 0;
	while (begin < end && isBlank(mapped.charCodeAt(begin))) begin++;
	const pieces: string[] = [];
	const segmentStarts: number[] = [0];
	const segmentOrigins: number[] = [begin];
	let length = 0;
	let copied = begin;
	BLANK_RUN.lastIndex = begin;
	for (let run = BLANK_RUN.exec(mapped); run && run.index < end; run = BLANK_RUN.exec(mapped)) {
		const runEnd = run.index + run[0].length;
		pieces.push(mapped.slice(copied, run.index));
		length += run.index - copied;
		const before = mapped.charCodeAt(run.index - 1);
		const after = mapped.charCodeAt(runEnd);
		// `a - -b` is not `a --b`, nor `x + +y` `x ++y`: a blank between two equal operators counts too.
		const keep =
			(isWordCode(before) && isWordCode(after)) || (before === after && OPERATORS.includes(mapped[runEnd] ?? ""));
		if (keep) {
			pieces.push(" ");
			segmentStarts.push(length);
			segmentOrigins.push(run.index);
			length++;
		}
		segmentStarts.push(length);
		segmentOrigins.push(runEnd);
		copied = runEnd;
	}
	pieces.push(mapped.slice(copied, end));
	return { text: pieces.join(""), segmentStarts, segmentOrigins };
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
		found.push({ startColumn: originOf(line, at), endColumn: originOf(line, at + key.length - 1) + 1 });
	}
	return found;
}

/** The match of a needle of several lines whose first line is the file's line `first`, or undefined. */
function matchAt(
	lines: readonly CanonicalLine[],
	first: number,
	needle: NeedleLines,
	budget: WorkBudget,
): Columns | undefined {
	const { keys, finalNewline } = needle;
	const count = keys.length;
	const head = lines[first] as CanonicalLine;
	const firstKey = keys[0] as string;
	const lastKey = keys[count - 1] as string;
	if (!head.text.endsWith(firstKey)) return undefined;
	const startIndex = head.text.length - firstKey.length;
	if (!edgesFit(head.text, startIndex, firstKey.length, needle, true, false)) return undefined;
	for (let offset = 1; offset < count - 1; offset++) {
		budget.spend(1);
		if (lines[first + offset]?.text !== keys[offset]) return undefined;
	}
	const tail = lines[first + count - 1] as CanonicalLine;
	if (finalNewline ? tail.text !== lastKey : !tail.text.startsWith(lastKey)) return undefined;
	if (!edgesFit(tail.text, 0, lastKey.length, needle, false, true)) return undefined;
	// A needle that starts with a line break starts after the last character of the line.
	const startColumn =
		startIndex < head.text.length ? originOf(head, startIndex) : originOf(head, head.text.length - 1) + 1;
	const endColumn = lastKey === "" ? 0 : originOf(tail, lastKey.length - 1) + 1;
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
	if (keys.every((key) => key === "") || context.content.length > MAX_CHARACTERS) return [];
	const fileLines = canonicalLinesOf(context);
	// A middle line must be equal, so the longest one makes the quick test for each place.
	let probe = -1;
	for (let index = 1; index < keys.length - 1; index++) {
		if (probe === -1 || (keys[index] as string).length > (keys[probe] as string).length) probe = index;
	}
	const occurrences: Occurrence[] = [];
	const budget = new WorkBudget();
	for (let first = 0; first + keys.length <= fileLines.length; first++) {
		if (probe !== -1 && fileLines[first + probe]?.text !== keys[probe]) continue;
		budget.spend(1);
		const found =
			keys.length === 1
				? matchesInLine(fileLines[first] as CanonicalLine, lines)
				: [matchAt(fileLines, first, lines, budget)].filter((columns) => columns !== undefined);
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
