import type { MatchContext } from "./match-context.js";
import { mapLookAlikes } from "./normalize.js";
import { countNewlines, lineEndOf, lineStartOf } from "./text.js";

const ZERO_WIDTH = /[\u200b-\u200d\u2060\ufeff]/g;

/** A text with every whitespace character removed. */
function withoutWhitespace(text: string): string {
	return text.replace(/\s+/g, "");
}

/**
 * Folds compatibility forms (full-width letters, ligatures), look-alikes and zero-width characters.
 * Line breaks are untouched, so a position in the result has the same line number as in the input.
 */
function foldUnicode(text: string): string {
	return mapLookAlikes(text.normalize("NFKC")).replace(ZERO_WIDTH, "");
}

// Longer old_strings are not worth a near-match search (the regex grows with them).
const MAX_PATTERN_CHARACTERS = 20_000;

/** `folded` (no whitespace) as a pattern that allows any whitespace between its characters. */
function spacedPattern(folded: string): RegExp | undefined {
	const characters = Array.from(folded);
	if (characters.length > MAX_PATTERN_CHARACTERS) return undefined;
	return new RegExp(characters.map((character) => character.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")).join("\\s*"));
}

function offsetOfLine(text: string, lineNumber: number): number {
	let offset = 0;
	for (let line = 1; line < lineNumber && offset !== -1; line++) {
		const newline = text.indexOf("\n", offset);
		offset = newline === -1 ? -1 : newline + 1;
	}
	return Math.max(0, offset);
}

// Zero-width and other format characters: invisible when quoted, so shown as escapes.
const INVISIBLE = /[\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]/g;

/** Lines `first`…`first + count - 1` of `text`, each prefixed with its number, at most `maxLines`. */
function quoteLines(text: string, first: number, count: number, maxLines = 6): string {
	const shown: string[] = [];
	let escaped = false;
	let offset = offsetOfLine(text, first);
	for (let index = 0; index < Math.min(count, maxLines) && offset <= text.length; index++) {
		const end = lineEndOf(text, offset);
		const line = text.slice(offset, end);
		const cut = line.length > 160 ? `${line.slice(0, 160)}…` : line;
		const visible = cut.replace(
			INVISIBLE,
			(character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`,
		);
		if (visible !== cut) escaped = true;
		shown.push(`  ${first + index}\t${visible}`);
		const newline = text.indexOf("\n", end);
		if (newline === -1) break;
		offset = newline + 1;
	}
	if (count > maxLines) shown.push(`  … (${count - maxLines} more lines)`);
	if (escaped) {
		shown.push("(\\uXXXX stands for an invisible character in the file: write it as that JSON escape in old_string.)");
	}
	return shown.join("\n");
}

/**
 * Looks for old_string with all whitespace (line breaks and blank lines included) ignored, then
 * also with Unicode compatibility forms folded: a near match the ladder could not take, to show.
 * One regex scan of the file per attempt (whitespace allowed between any two characters), so a
 * miss in a large file stays cheap and positions keep their line numbers.
 */
function nearMatch(content: string, needle: string): string | undefined {
	const ascii = !/[^\x00-\x7f]/.test(content);
	const attempts = [
		{
			needle: withoutWhitespace(needle),
			text: () => content,
			kind: "only in whitespace (spaces, tabs, indentation, blank lines or line breaks)",
		},
		{
			needle: withoutWhitespace(foldUnicode(needle)),
			// Folding changes nothing in an ASCII file.
			text: () => (ascii ? content : foldUnicode(content)),
			kind: "only in whitespace or Unicode look-alike characters (quotes, dashes, spaces, full-width or zero-width characters)",
		},
	];
	let tried: string | undefined;
	for (const attempt of attempts) {
		// Too short once folded, and "near matches" are coincidences.
		if (attempt.needle.length < 4) return undefined;
		// Nothing new to find when neither the needle nor the file changed in folding.
		if (ascii && attempt.needle === tried) continue;
		tried = attempt.needle;
		const pattern = spacedPattern(attempt.needle);
		if (!pattern) return undefined;
		const text = attempt.text();
		const match = pattern.exec(text);
		if (!match) continue;
		const first = countNewlines(text, 0, match.index) + 1;
		const last = first + countNewlines(text, match.index, match.index + match[0].length);
		return `A near match at line ${first} differs ${attempt.kind}:\n${quoteLines(content, first, last - first + 1)}\nCopy old_string exactly from these lines.`;
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
