import { countNewlines } from "../text.js";
import { anchorPlaces } from "./candidates.js";
import type { MatchContext } from "./match-context.js";
import { isBlank, mapLookAlikes } from "./normalize.js";

/**
 * The near match a failed edit reports: old_string found with all whitespace ignored (line
 * breaks and blank lines too), then also with Unicode compatibility forms folded. Bounded work:
 * only windows of the file around the places of old_string's rarest word are searched (a word
 * is never split by whitespace in this search), each with one whitespace strip and one `indexOf`,
 * no regex built from old_string (which backtracked for seconds on long lines).
 */

const ZERO_WIDTH = /[\u200b-\u200d\u2060\ufeff]/g;
/** Files up to this many characters are searched whole when no word of old_string narrows the search. */
const MAX_WHOLE_CHARACTERS = 2 ** 21;
/** Files up to this many characters are folded with NFKC (ligatures, compatibility forms). */
const MAX_NFKC_CHARACTERS = 2 ** 20;

/** Where the near match is: its first line and how many lines it spans. */
export interface NearMatch {
	/** 1-based line of the file where it starts. */
	line: number;
	/** Lines it spans. */
	lineCount: number;
	/** How it differs, for the message. */
	kind: string;
}

function isWhitespace(code: number): boolean {
	return code === 10 || code === 13 || isBlank(code);
}

function withoutWhitespace(text: string): string {
	return text.replace(/\s+/g, "");
}

/**
 * Folds compatibility forms (full-width letters, ligatures), look-alikes and zero-width characters.
 * Line breaks are untouched, so a position in the result has the same line number as in the input.
 */
function foldUnicode(text: string): string {
	const composed = text.length <= MAX_NFKC_CHARACTERS ? text.normalize("NFKC") : text;
	return mapLookAlikes(composed).replace(ZERO_WIDTH, "");
}

/** Offset in `text` of its `count`-th character that is not whitespace (0-based). */
function offsetOfNonWhitespace(text: string, count: number): number {
	let seen = 0;
	for (let index = 0; index < text.length; index++) {
		if (isWhitespace(text.charCodeAt(index))) continue;
		if (seen === count) return index;
		seen++;
	}
	return text.length;
}

/** Spans of whole lines around the places of the rarest word of `needle`, merged (none: nothing to search). */
function windowsOf(context: MatchContext, needle: string): { start: number; end: number }[] {
	const text = context.content;
	const anchor = anchorPlaces(context, needle);
	// A word missing as it is may still be there split by a zero-width character: a small file is searched whole.
	if (typeof anchor === "string") return text.length <= MAX_WHOLE_CHARACTERS ? [{ start: 0, end: text.length }] : [];
	// Room for the rest of old_string on either side, with generous whitespace in between.
	const reach = 2 * needle.length + 256;
	const spans: { start: number; end: number }[] = [];
	for (const place of anchor.places) {
		const from = Math.max(0, place - reach);
		const start = from === 0 ? 0 : text.lastIndexOf("\n", from) + 1;
		const newline = text.indexOf("\n", Math.min(text.length, place + reach));
		const end = newline === -1 ? text.length : newline;
		const previous = spans[spans.length - 1];
		if (previous && start <= previous.end) previous.end = Math.max(previous.end, end);
		else spans.push({ start, end });
	}
	return spans;
}

/** The first near match of `needle` in the file, or undefined. */
export function findNearMatch(context: MatchContext, needle: string): NearMatch | undefined {
	const content = context.content;
	const attempts = [
		{
			fold: (text: string) => text,
			kind: "only in whitespace (spaces, tabs, indentation, blank lines or line breaks)",
		},
		{
			fold: foldUnicode,
			kind: "only in whitespace or Unicode look-alike characters (quotes, dashes, spaces, full-width or zero-width characters)",
		},
	];
	const windows = windowsOf(context, foldUnicode(needle));
	let tried: string | undefined;
	for (const attempt of attempts) {
		const folded = withoutWhitespace(attempt.fold(needle));
		// Too short once folded, and "near matches" are coincidences.
		if (folded.length < 4) return undefined;
		for (const window of windows) {
			const original = content.slice(window.start, window.end);
			const text = attempt.fold(original);
			// Nothing new to find when neither the needle nor the window changed in folding.
			if (folded === tried && text === original) continue;
			const at = withoutWhitespace(text).indexOf(folded);
			if (at === -1) continue;
			const startOffset = offsetOfNonWhitespace(text, at);
			const endOffset = offsetOfNonWhitespace(text, at + folded.length - 1);
			const line = countNewlines(content, 0, window.start) + countNewlines(text, 0, startOffset) + 1;
			return { line, lineCount: countNewlines(text, startOffset, endOffset) + 1, kind: attempt.kind };
		}
		tried = folded;
	}
	return undefined;
}
