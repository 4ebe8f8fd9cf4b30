import { ToolError } from "../../../engine/index.js";
import { lineNumbersOf, previewLine } from "../text.js";
import { findCandidates } from "./candidates.js";
import { describeMiss } from "./diagnose.js";
import { unescapeOnce } from "./escapes.js";
import { findByIndentation, type Occurrence } from "./indentation.js";
import { findByInnerWhitespace } from "./inner-whitespace.js";
import { stripLineNumbers, stripLineNumbersLoosely } from "./line-numbers.js";
import type { MatchContext } from "./match-context.js";
import { hasLookAlikes, type Normalization, normalizeNeedle, toOriginalSpan } from "./normalize.js";

/** How an old_string was found: exactly, or by one rung of the tolerant matching ladder. */
export type EditMatchStrategy =
	| "exact"
	| "line-endings"
	| "trailing-whitespace"
	| "unicode"
	| "indentation"
	| "whitespace"
	| "line-numbers"
	| "escapes";

/** The ladder's rungs, from strict to tolerant. */
export const MATCH_STRATEGIES: readonly EditMatchStrategy[] = [
	"exact",
	"line-endings",
	"trailing-whitespace",
	"unicode",
	"indentation",
	"whitespace",
	"line-numbers",
	"escapes",
];

/** How each tolerant strategy is described to the model. */
export const STRATEGY_NOTES: Record<EditMatchStrategy, string> = {
	exact: "exact match",
	"line-endings": "matched ignoring line endings",
	"trailing-whitespace": "matched ignoring trailing whitespace",
	unicode:
		"matched treating curly quotes, dashes, special spaces and full-width forms as plain ASCII, and composed and decomposed accents as the same",
	indentation: "matched ignoring indentation; new_string was re-indented to the file",
	whitespace:
		"matched ignoring spaces inside lines (runs of spaces, spaces around brackets, commas and operators) and indentation",
	"line-numbers": "matched after removing line-number prefixes copied from read output",
	escapes:
		'matched after reading the escapes \\n, \\t, \\" and \\\\ in old_string as the characters they stand for (the text was escaped twice); new_string was read the same way',
};

/** One replacement request: what to find, what to put there, and whether every occurrence counts. */
export interface EditRequest {
	oldString: string;
	newString: string;
	replaceAll: boolean;
}

/** Where an edit applies, and which rung found it. */
export interface LocatedEdit {
	strategy: EditMatchStrategy;
	/** The spans to replace, ascending and not overlapping. */
	occurrences: Occurrence[];
}

interface Rung {
	strategy: EditMatchStrategy;
	normalization: Normalization;
	/** Cheap test whether this rung could find anything the previous one did not. */
	applies(context: MatchContext, needle: string): boolean;
}

/** Whether `needle` is the end of `text` plus a final line break that `text` lacks. */
function endsWithoutLineBreak(text: string, needle: string): boolean {
	return (
		needle.length > 1 && needle.endsWith("\n") && !text.endsWith("\n") && text.endsWith(needle.replace(/\r?\n$/, ""))
	);
}

const RUNGS: readonly Rung[] = [
	{
		strategy: "line-endings",
		normalization: { lineEndings: true, trailingWhitespace: false, unicode: false },
		applies: (context, needle) =>
			context.content.includes("\r") || needle.includes("\r") || endsWithoutLineBreak(context.content, needle),
	},
	{
		strategy: "trailing-whitespace",
		normalization: { lineEndings: true, trailingWhitespace: true, unicode: false },
		applies: () => true,
	},
	{
		strategy: "unicode",
		normalization: { lineEndings: true, trailingWhitespace: true, unicode: true },
		applies: (context, needle) => hasLookAlikes(needle) || hasLookAlikes(context.content),
	},
];

/**
 * Every start of `needle` in `haystack`, each search resuming after the last match (so a
 * repetitive file costs one pass, not one per character); one overlapping the only match is
 * added, as it makes that match ambiguous too ("aa" in "aaa").
 */
function findAll(haystack: string, needle: string): number[] {
	const positions: number[] = [];
	for (
		let index = haystack.indexOf(needle);
		index !== -1;
		index = haystack.indexOf(needle, index + Math.max(1, needle.length))
	) {
		positions.push(index);
	}
	const [only] = positions;
	if (positions.length === 1 && only !== undefined) {
		const overlapping = haystack.indexOf(needle, only + 1);
		if (overlapping !== -1) positions.push(overlapping);
	}
	return positions;
}

/**
 * old_string with accents composed (NFC) or decomposed (NFD) the other way from the file: they look
 * identical, so the model cannot copy them "better". new_string takes the file's form too.
 */
function findOtherNormalForm(content: string, needle: string, replacement: string): LocatedEdit | undefined {
	for (const form of ["NFC", "NFD"] as const) {
		const variant = needle.normalize(form);
		if (variant === needle) continue;
		const found = findAll(content, variant);
		if (found.length === 0) continue;
		const text = replacement.normalize(form);
		return {
			strategy: "unicode",
			occurrences: found.map((start) => ({ start, end: start + variant.length, replacement: text })),
		};
	}
	return undefined;
}

/** The normalization rungs: the needle and the file normalized alike, matches mapped back. */
function findNormalized(context: MatchContext, rung: Rung, needle: string, replacement: string): Occurrence[] {
	if (!rung.applies(context, needle)) return [];
	const normalizedNeedle = normalizeNeedle(needle, rung.normalization);
	if (normalizedNeedle === "") return [];
	const view = context.normalizedBy(rung.normalization);
	let found = findAll(view.text, normalizedNeedle);
	if (rung.normalization.trailingWhitespace && /[^\S\r\n]$/.test(needle)) {
		// The blanks cut from the needle's end were trailing only if the match ends a line too.
		const after = normalizedNeedle.length;
		found = found.filter((start) => start + after === view.text.length || view.text[start + after] === "\n");
	}
	let length = normalizedNeedle.length;
	let text = replacement;
	if (found.length === 0 && rung.normalization.lineEndings) {
		// A final line break copied after the file's last line, which has none.
		const start = view.text.length - (length - 1);
		if (endsWithoutLineBreak(view.text, normalizedNeedle) && start >= 0) {
			found = [start];
			length--;
			text = replacement.replace(/\r?\n$/, "");
		}
	}
	return found.map((start) => ({
		...toOriginalSpan(view, context.content, { start, end: start + length }),
		replacement: text,
	}));
}

/** The tolerant rungs in order, each finding its matches in one context (the file or a window of it). */
const TOLERANT_RUNGS: readonly {
	strategy: EditMatchStrategy;
	find(context: MatchContext, needle: string, replacement: string): Occurrence[];
}[] = [
	...RUNGS.map((rung) => ({
		strategy: rung.strategy,
		find: (context: MatchContext, needle: string, replacement: string) =>
			findNormalized(context, rung, needle, replacement),
	})),
	{ strategy: "indentation", find: findByIndentation },
	{ strategy: "whitespace", find: findByInnerWhitespace },
];

function search(
	context: MatchContext,
	needle: string,
	replacement: string,
	otherForms = true,
): LocatedEdit | undefined {
	const exact = findAll(context.content, needle);
	if (exact.length === 1 && needle.includes("\n") && context.content.includes("\r\n")) {
		// A file of mixed line endings reads the same both ways: the model cannot tell the one
		// exact place from one that differs only in its CRs, so both count.
		const lineEndings = TOLERANT_RUNGS[0]?.find(context, needle, replacement) ?? [];
		if (lineEndings.length > 1) return { strategy: "line-endings", occurrences: lineEndings };
	}
	if (exact.length > 0) {
		return {
			strategy: "exact",
			occurrences: exact.map((start) => ({ start, end: start + needle.length, replacement })),
		};
	}
	const composed = findOtherNormalForm(context.content, needle, replacement);
	if (composed) return composed;
	// Only the lines around the rarest word of old_string are worth normalizing.
	const candidates = findCandidates(context, needle);
	if (candidates.kind === "none") return undefined;
	const windows = candidates.kind === "whole" ? [{ context, offset: 0 }] : candidates.windows;
	for (const rung of TOLERANT_RUNGS) {
		const occurrences = windows.flatMap((window) =>
			rung.find(window.context, needle, replacement).map((occurrence) => ({
				start: occurrence.start + window.offset,
				end: occurrence.end + window.offset,
				replacement: occurrence.replacement,
			})),
		);
		if (occurrences.length > 0) return { strategy: rung.strategy, occurrences };
	}
	// Accents composed the other way and another difference (a full-width letter) in one old_string.
	if (otherForms) {
		for (const form of ["NFC", "NFD"] as const) {
			const variant = needle.normalize(form);
			if (variant === needle) continue;
			const found = search(context, variant, replacement.normalize(form), false);
			if (found) return found;
		}
	}
	return undefined;
}

/** Keeps the first of overlapping occurrences (what replacing them all left to right means). */
function disjoint(occurrences: readonly Occurrence[]): Occurrence[] {
	const kept: Occurrence[] = [];
	for (const occurrence of occurrences) {
		const last = kept[kept.length - 1];
		if (!last || occurrence.start >= last.end) kept.push(occurrence);
	}
	return kept;
}

function ambiguityMessage(context: MatchContext, located: LocatedEdit): string {
	const starts = located.occurrences.map((occurrence) => occurrence.start);
	const lines = lineNumbersOf(context.content, starts);
	const shown = starts
		.slice(0, 10)
		.map((start, index) => `  line ${lines[index]}: ${previewLine(context.content, start)}`);
	if (starts.length > 10) shown.push(`  … and ${starts.length - 10} more`);
	const how = located.strategy === "exact" ? "" : ` (${STRATEGY_NOTES[located.strategy]})`;
	return (
		`old_string matches ${starts.length} places${how}, at lines ${lines.slice(0, 10).join(", ")}` +
		`${starts.length > 10 ? ", …" : ""}:\n${shown.join("\n")}\n` +
		"Add surrounding lines to old_string so it matches exactly one place, or set replace_all to true to replace every one."
	);
}

/** old_string escaped twice, read once: taken only when it then matches exactly one place. */
function findUnescaped(context: MatchContext, request: EditRequest): LocatedEdit | undefined {
	const needle = unescapeOnce(request.oldString);
	if (needle === undefined || needle.trim() === "") return undefined;
	const found = search(context, needle, unescapeOnce(request.newString) ?? request.newString);
	if (found?.occurrences.length !== 1) return undefined;
	return { strategy: "escapes", occurrences: found.occurrences };
}

/**
 * Finds where an edit applies: exactly first, then each tolerant rung in turn; uniqueness is
 * decided on the first rung that finds anything. Throws a `ToolError` written for the model when
 * nothing matches or, without replace_all, more than one place does.
 */
export function locateEdit(context: MatchContext, request: EditRequest): LocatedEdit {
	let located = search(context, request.oldString, request.newString);
	let preferredLine: number | undefined;
	let needle = request.oldString;
	if (!located) {
		const stripped = stripLineNumbers(request.oldString);
		if (stripped && stripped.text.trim() !== "") {
			needle = stripped.text;
			const inner = search(context, stripped.text, stripLineNumbersLoosely(request.newString));
			if (inner) {
				located = { strategy: "line-numbers", occurrences: inner.occurrences };
				preferredLine = stripped.firstLine;
			}
		}
	}
	if (!located) located = findUnescaped(context, request);
	if (!located) throw new ToolError(describeMiss(context, needle, request.newString), { reason: "not-found" });
	if (request.replaceAll) return { strategy: located.strategy, occurrences: disjoint(located.occurrences) };
	if (located.occurrences.length > 1 && preferredLine !== undefined) {
		// The copied prefix says which line was meant: that settles an otherwise ambiguous match.
		const lines = lineNumbersOf(
			context.content,
			located.occurrences.map((occurrence) => occurrence.start),
		);
		const chosen = located.occurrences.filter((_, index) => lines[index] === preferredLine);
		if (chosen.length === 1) return { strategy: located.strategy, occurrences: chosen };
	}
	if (located.occurrences.length > 1) throw new ToolError(ambiguityMessage(context, located));
	return located;
}
