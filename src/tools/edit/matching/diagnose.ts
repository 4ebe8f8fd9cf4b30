import { countNewlines, lineEndOf, lineStartOf } from "../text.js";
import { findClosestRegion } from "./closest-region.js";
import type { MatchContext } from "./match-context.js";
import { findNearMatch } from "./near-match.js";

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

function nearMatchHint(context: MatchContext, needle: string): string | undefined {
	const near = findNearMatch(context, needle);
	if (!near) return undefined;
	return `A near match at line ${near.line} differs ${near.kind}:\n${quoteLines(context.content, near.line, near.lineCount)}\nCopy old_string exactly from these lines.`;
}

function closestRegionHint(content: string, needle: string): string | undefined {
	const closest = findClosestRegion(content, needle);
	if (!closest || closest.differences.length === 0) return undefined;
	const where =
		closest.lineCount > 1 ? `lines ${closest.line}-${closest.line + closest.lineCount - 1}` : `line ${closest.line}`;
	return `The closest text is at ${where}. Compared with old_string, it differs: ${closest.differences.join("; ")}.\n${quoteLines(content, closest.line, closest.lineCount)}\nCopy old_string exactly from these lines.`;
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
	const lineCount = needle.trim().split("\n").length;
	return `The first line of old_string occurs at line ${lines.join(", ")}, but the lines after it differ from the file. The file at line ${lines[0]}:\n${quoteLines(content, lines[0] as number, lineCount)}\nCopy old_string exactly from the file's lines.`;
}

/** Non-whitespace characters of the text shared by both ends of old_string and new_string needed to count as evidence. */
const MIN_SHARED_CONTEXT = 4;
/** Non-whitespace characters a new_string needs to be evidence on its own (a new function, a rewritten block). */
const MIN_DISTINCT_REPLACEMENT = 24;

function nonWhitespaceLength(text: string): number {
	return text.replace(/\s+/g, "").length;
}

/**
 * True when finding new_string (once) in the file is evidence that this edit was made: the
 * change is anchored by text that old_string and new_string share (`hello there` → `hello
 * world`), or new_string is long enough not to occur by chance. A short new_string (`x`,
 * `const`) occurs somewhere in most files, and one that old_string contains (a deletion) was
 * there before the edit too: neither proves anything.
 */
function provesApplied(needle: string, replacement: string): boolean {
	if (replacement.trim() === "" || needle.includes(replacement)) return false;
	let prefix = 0;
	while (prefix < needle.length && prefix < replacement.length && needle[prefix] === replacement[prefix]) prefix++;
	let suffix = 0;
	while (
		suffix < needle.length - prefix &&
		suffix < replacement.length - prefix &&
		needle[needle.length - 1 - suffix] === replacement[replacement.length - 1 - suffix]
	) {
		suffix++;
	}
	const shared = replacement.slice(0, prefix) + replacement.slice(replacement.length - suffix);
	return (
		nonWhitespaceLength(shared) >= MIN_SHARED_CONTEXT || nonWhitespaceLength(replacement) >= MIN_DISTINCT_REPLACEMENT
	);
}

/**
 * The error message for an old_string that no rung of the ladder found: whether the edit looks
 * already applied, where a near match is (and how it differs), and what to do next.
 */
export function describeMiss(context: MatchContext, needle: string, replacement: string): string {
	const content = context.content;
	const parts = ["old_string was not found in the file."];
	if (provesApplied(needle, replacement)) {
		const first = content.indexOf(replacement);
		if (first !== -1 && content.indexOf(replacement, first + 1) === -1) {
			const line = countNewlines(content, 0, lineStartOf(content, first)) + 1;
			parts.push(
				`new_string already occurs once, at line ${line}: the edit looks already applied. Read the file to check before editing again.`,
			);
			return parts.join(" ");
		}
	}
	const hint = nearMatchHint(context, needle) ?? closestRegionHint(content, needle) ?? firstLineHint(content, needle);
	if (hint) parts.push(hint);
	else parts.push("Read the file to see its current content, then copy old_string from it exactly.");
	return parts.join("\n");
}
