/**
 * Normalized views of text for the tolerant rungs of edit's matching ladder. A normalization only
 * substitutes characters one for one or deletes them, so every position in the normalized text
 * maps back to a position in the original, and a match found there replaces exactly the original
 * bytes it covers — nothing outside it.
 */

/** What a normalization tolerates. The ladder turns these on one after another. */
export interface Normalization {
	/** Treat `\r\n` as `\n`. */
	lineEndings: boolean;
	/** Ignore spaces and tabs (and other non-breaking spaces) at the end of each line. */
	trailingWhitespace: boolean;
	/** Treat curly quotes, en/em dashes, minus signs, non-breaking or typographic spaces and full-width forms as their ASCII forms. */
	unicode: boolean;
}

/** A normalized text plus what is needed to map its positions back to the original. */
export interface NormalizedText {
	/** The normalized text. */
	text: string;
	/** Normalized positions before which characters were deleted, ascending. */
	runPositions: number[];
	/** Characters deleted up to and including the run at the same index. */
	runTotals: number[];
	/** Whether `\r\n` became `\n`. */
	lineEndings: boolean;
}

// One-for-one replacements (all in the BMP, so UTF-16 offsets are unchanged).
const LOOK_ALIKES: Record<string, string> = {
	"\u00a0": " ",
	"\u2007": " ",
	"\u2008": " ",
	"\u2009": " ",
	"\u200a": " ",
	"\u2000": " ",
	"\u2001": " ",
	"\u2002": " ",
	"\u2003": " ",
	"\u2004": " ",
	"\u2005": " ",
	"\u2006": " ",
	"\u202f": " ",
	"\u205f": " ",
	"\u3000": " ",
	"\u2018": "'",
	"\u2019": "'",
	"\u201a": "'",
	"\u201b": "'",
	"\u2032": "'",
	"\u201c": '"',
	"\u201d": '"',
	"\u201e": '"',
	"\u201f": '"',
	"\u2033": '"',
	"\u2010": "-",
	"\u2011": "-",
	"\u2012": "-",
	"\u2013": "-",
	"\u2014": "-",
	"\u2015": "-",
	"\u2212": "-",
};

// Full-width ASCII (U+FF01–U+FF5E: `，（）ＡＢＣ１２３`) sits at a fixed distance from ASCII.
const FULL_WIDTH_FIRST = 0xff01;
const FULL_WIDTH_LAST = 0xff5e;
const FULL_WIDTH_SHIFT = 0xfee0;

const LOOK_ALIKE_PATTERN = new RegExp(`[${Object.keys(LOOK_ALIKES).join("")}\\uff01-\\uff5e]`, "g");

function asciiFormOf(character: string): string {
	const code = character.charCodeAt(0);
	if (code >= FULL_WIDTH_FIRST && code <= FULL_WIDTH_LAST) return String.fromCharCode(code - FULL_WIDTH_SHIFT);
	return LOOK_ALIKES[character] ?? character;
}

/**
 * Replaces Unicode look-alikes (curly quotes, dashes, odd spaces, full-width letters, digits and
 * punctuation) by their ASCII forms, one for one.
 */
export function mapLookAlikes(text: string): string {
	LOOK_ALIKE_PATTERN.lastIndex = 0;
	if (!LOOK_ALIKE_PATTERN.test(text)) return text;
	return text.replace(LOOK_ALIKE_PATTERN, asciiFormOf);
}

/** Whether `text` holds full-width forms (whose ASCII forms are any printable character). */
export function hasFullWidth(text: string): boolean {
	return /[\uff01-\uff5e]/.test(text);
}

/** Whether `text` holds any character that `mapLookAlikes` would change. */
export function hasLookAlikes(text: string): boolean {
	LOOK_ALIKE_PATTERN.lastIndex = 0;
	return LOOK_ALIKE_PATTERN.test(text);
}

/**
 * Whether the UTF-16 unit `code` is whitespace other than a line break (what `[^\S\r\n]` means in
 * a JavaScript regex): spaces, tabs, NBSP and the other Unicode spaces.
 */
export function isBlank(code: number): boolean {
	if (code === 32 || code === 9) return true;
	if (code < 0xa0) return code === 11 || code === 12;
	return (
		code === 0xa0 ||
		code === 0x1680 ||
		(code >= 0x2000 && code <= 0x200a) ||
		code === 0x2028 ||
		code === 0x2029 ||
		code === 0x202f ||
		code === 0x205f ||
		code === 0x3000 ||
		code === 0xfeff
	);
}

/**
 * Deletes what `normalization` ignores — the CR of each CRLF, blanks at the end of each line —
 * calling `onDelete(offset, length)` for each deleted run (offsets in `source`), in order. Only
 * the ends of lines are looked at (found with `indexOf`), so the cost is one native pass plus the
 * blanks removed; a regex with a lookahead after a blank run backtracks over every long run.
 */
function deleteIgnored(
	source: string,
	normalization: Normalization,
	onDelete: (offset: number, length: number) => void,
): string {
	const { lineEndings, trailingWhitespace } = normalization;
	const pieces: string[] = [];
	let copied = 0;
	const remove = (from: number, to: number) => {
		if (to <= from) return;
		pieces.push(source.slice(copied, from));
		onDelete(from, to - from);
		copied = to;
	};
	const blanksBefore = (end: number) => {
		let start = end;
		while (start > copied && isBlank(source.charCodeAt(start - 1))) start--;
		return start;
	};
	for (let newline = source.indexOf("\n"); newline !== -1; newline = source.indexOf("\n", newline + 1)) {
		const crlf = newline > copied && source.charCodeAt(newline - 1) === 13;
		const lineEnd = crlf ? newline - 1 : newline;
		const start = trailingWhitespace ? blanksBefore(lineEnd) : lineEnd;
		remove(start, lineEndings && crlf ? newline : lineEnd);
	}
	if (trailingWhitespace) remove(blanksBefore(source.length), source.length);
	if (copied === 0) return source;
	pieces.push(source.slice(copied));
	return pieces.join("");
}

/** Normalizes `text` and records the deletions, so positions can be mapped back with `toOriginal*`. */
export function normalizeText(text: string, normalization: Normalization): NormalizedText {
	const source = normalization.unicode ? mapLookAlikes(text) : text;
	const runPositions: number[] = [];
	const runTotals: number[] = [];
	if (!normalization.lineEndings && !normalization.trailingWhitespace) {
		return { text: source, runPositions, runTotals, lineEndings: false };
	}
	let deleted = 0;
	const normalized = deleteIgnored(source, normalization, (offset, length) => {
		runPositions.push(offset - deleted);
		deleted += length;
		runTotals.push(deleted);
	});
	return { text: normalized, runPositions, runTotals, lineEndings: normalization.lineEndings };
}

/** Normalizes a needle (old_string) the same way; no position map is needed for it. */
export function normalizeNeedle(text: string, normalization: Normalization): string {
	const source = normalization.unicode ? mapLookAlikes(text) : text;
	return deleteIgnored(source, normalization, () => {});
}

function deletedBefore(normalized: NormalizedText, position: number): number {
	const { runPositions, runTotals } = normalized;
	let low = 0;
	let high = runPositions.length - 1;
	let total = 0;
	while (low <= high) {
		const middle = (low + high) >> 1;
		if ((runPositions[middle] ?? 0) <= position) {
			total = runTotals[middle] ?? 0;
			low = middle + 1;
		} else {
			high = middle - 1;
		}
	}
	return total;
}

/**
 * Maps a normalized match `[start, end)` (end > start) of `original` back to original offsets.
 * Deleted characters just before the start or just after the end stay outside the span; those
 * inside it are part of it. A match that starts with a line break takes that break's CR with it,
 * so no lone CR is left behind.
 */
export function toOriginalSpan(
	normalized: NormalizedText,
	original: string,
	match: { start: number; end: number },
): { start: number; end: number } {
	let start = match.start + deletedBefore(normalized, match.start);
	if (normalized.lineEndings && original.charCodeAt(start) === 10 && original.charCodeAt(start - 1) === 13) start--;
	return { start, end: match.end - 1 + deletedBefore(normalized, match.end - 1) + 1 };
}
