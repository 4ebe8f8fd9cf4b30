import type { MatchContext } from "./match-context.js";
import { mapLookAlikes } from "./normalize.js";
import { countNewlines, lineEndOf, lineStartOf } from "./text.js";

const ZERO_WIDTH = /[\u200b-\u200d\u2060\ufeff]/g;

/** A line with every whitespace character removed. */
function withoutWhitespace(line: string): string {
	return line.replace(/\s+/g, "");
}

/** Also folds compatibility forms (full-width letters, ligatures), look-alikes and zero-width characters. */
function withoutWhitespaceOrUnicode(line: string): string {
	return withoutWhitespace(mapLookAlikes(line.normalize("NFKC")).replace(ZERO_WIDTH, ""));
}

/** The text's lines folded and joined without separators, with where each line starts in the result. */
interface FoldedText {
	text: string;
	/** Offset in `text` where each kept (non-empty after folding) line starts. */
	starts: number[];
	/** The 1-based line number of each kept line. */
	lines: number[];
}

function foldLines(content: string, fold: (line: string) => string): FoldedText {
	const parts: string[] = [];
	const starts: number[] = [];
	const lines: number[] = [];
	let length = 0;
	for (const [index, line] of content.split("\n").entries()) {
		const folded = fold(line);
		if (folded === "") continue;
		parts.push(folded);
		starts.push(length);
		lines.push(index + 1);
		length += folded.length;
	}
	return { text: parts.join(""), starts, lines };
}

/** The line number holding folded offset `offset`. */
function lineAt(folded: FoldedText, offset: number): number {
	let low = 0;
	let high = folded.starts.length - 1;
	while (low < high) {
		const middle = (low + high + 1) >> 1;
		if ((folded.starts[middle] ?? 0) <= offset) low = middle;
		else high = middle - 1;
	}
	return folded.lines[low] ?? 1;
}

function offsetOfLine(text: string, lineNumber: number): number {
	let offset = 0;
	for (let line = 1; line < lineNumber && offset !== -1; line++) {
		const newline = text.indexOf("\n", offset);
		offset = newline === -1 ? -1 : newline + 1;
	}
	return Math.max(0, offset);
}

/** Lines `first`…`first + count - 1` of `text`, each prefixed with its number, at most `maxLines`. */
function quoteLines(text: string, first: number, count: number, maxLines = 6): string {
	const shown: string[] = [];
	let offset = offsetOfLine(text, first);
	for (let index = 0; index < Math.min(count, maxLines) && offset <= text.length; index++) {
		const end = lineEndOf(text, offset);
		const line = text.slice(offset, end);
		shown.push(`  ${first + index}\t${line.length > 160 ? `${line.slice(0, 160)}…` : line}`);
		const newline = text.indexOf("\n", end);
		if (newline === -1) break;
		offset = newline + 1;
	}
	if (count > maxLines) shown.push(`  … (${count - maxLines} more lines)`);
	return shown.join("\n");
}

/**
 * Looks for old_string with all whitespace (line breaks and blank lines included) ignored, then
 * also with Unicode compatibility forms folded: a near match the ladder could not take, to show.
 */
function nearMatch(content: string, needle: string): string | undefined {
	const attempts = [
		{ fold: withoutWhitespace, kind: "only in whitespace (spaces, tabs, indentation, blank lines or line breaks)" },
		{
			fold: withoutWhitespaceOrUnicode,
			kind: "only in whitespace or Unicode look-alike characters (quotes, dashes, spaces, full-width or zero-width characters)",
		},
	];
	// For ASCII text the second fold changes nothing in the file: reuse the first (a large file costs one pass).
	const ascii = !/[^\x00-\x7f]/.test(content);
	let folded: FoldedText | undefined;
	for (const [attempt, { fold, kind }] of attempts.entries()) {
		const foldedNeedle = fold(needle);
		// Too short once folded, and "near matches" are coincidences.
		if (foldedNeedle.length < 4) return undefined;
		if (attempt === 0 || !ascii || !folded) folded = foldLines(content, fold);
		const index = folded.text.indexOf(foldedNeedle);
		if (index === -1) continue;
		const first = lineAt(folded, index);
		const last = lineAt(folded, index + foldedNeedle.length - 1);
		return `A near match at line ${first} differs ${kind}:\n${quoteLines(content, first, last - first + 1)}\nCopy old_string exactly from these lines.`;
	}
	return undefined;
}

function firstLineHint(content: string, needle: string): string | undefined {
	const firstLine = needle.split("\n").find((line) => line.trim() !== "");
	const probe = firstLine?.trim();
	if (!probe || probe.length < 3 || !needle.trim().includes("\n")) return undefined;
	const lines: number[] = [];
	let counted = 0;
	let line = 1;
	for (
		let index = content.indexOf(probe);
		index !== -1 && lines.length < 5;
		index = content.indexOf(probe, index + 1)
	) {
		line += countNewlines(content, counted, index);
		counted = index;
		if (lines[lines.length - 1] !== line) lines.push(line);
		index = lineEndOf(content, index);
	}
	if (lines.length === 0) return undefined;
	return `The first line of old_string occurs at line ${lines.join(", ")}, but the lines after it differ from the file.`;
}

/**
 * The error message for an old_string that no rung of the ladder found: whether the edit looks
 * already applied, where a near match is (and how it differs), and what to do next.
 */
export function describeMiss(context: MatchContext, needle: string, replacement: string): string {
	const content = context.content;
	const parts = ["old_string was not found in the file."];
	if (replacement.trim() !== "") {
		const first = content.indexOf(replacement);
		if (first !== -1 && content.indexOf(replacement, first + 1) === -1) {
			const line = countNewlines(content, 0, lineStartOf(content, first)) + 1;
			parts.push(
				`new_string already occurs once, at line ${line}: the edit looks already applied. Read the file to check before editing again.`,
			);
			return parts.join(" ");
		}
	}
	const hint = nearMatch(content, needle) ?? firstLineHint(content, needle);
	if (hint) parts.push(hint);
	else parts.push("Read the file to see its current content, then copy old_string from it exactly.");
	return parts.join("\n");
}
