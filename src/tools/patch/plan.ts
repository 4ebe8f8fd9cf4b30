import { ToolError } from "../../engine/index.js";
import { type EditMatchStrategy, type EditRequest, locateEdit } from "../edit/matching/match.js";
import { MatchContext } from "../edit/matching/match-context.js";
import type { AppliedReplacement } from "../edit/plan.js";
import { lineNumbersOf, withLineEnding } from "../edit/text.js";
import { lineEndingNear, stringSource } from "../edit/text-source.js";
import { LineIndex } from "./line-index.js";
import type { PatchHunk } from "./parse.js";

/** The hunks of one file worked out against its text. */
export interface FilePatchPlan {
	/** The new text (without BOM). */
	content: string;
	/** Every replaced span, ascending (for the diff). */
	replacements: AppliedReplacement[];
	/** The strategy each hunk matched with, in order. */
	strategies: EditMatchStrategy[];
}

interface Span {
	start: number;
	end: number;
	text: string;
}

function hunkError(path: string, hunk: PatchHunk, message: string, details?: unknown): ToolError {
	return new ToolError(
		`Hunk ${hunk.number} of ${path} does not apply: ${message.replace(/old_string was/g, "the hunk's context and '-' lines were").replace(/old_string/g, "the hunk's lines")}\nNo file was changed.`,
		{ reason: "hunk-failed", path, hunk: hunk.number, ...(typeof details === "object" ? details : {}) },
	);
}

/**
 * Most characters all of a file's hunks may search, together, in the full search (edit's ladder,
 * through the rest of the file after the hunk before) and in the index's candidates. About a
 * second's work: 100,000 hunks on an 8 MB file searched for more than 5 minutes before this bound.
 * A hunk the line index finds (its exact lines, once) costs the places its rarest line occurs.
 */
export const MAX_PATCH_SEARCH_CHARS = 2 ** 30;

/** One file's text as the hunks seek it: its line index (made on first use) and the search budget left. */
class FileSearch {
	private index: LineIndex | undefined | null = null;
	private left = MAX_PATCH_SEARCH_CHARS;
	private hunk = 0;

	constructor(
		readonly path: string,
		readonly content: string,
		private readonly hunkCount: number,
	) {}

	/** Starts the search of the next hunk (for the refusal's figures). */
	nextHunk(number: number): void {
		this.hunk = number;
	}

	/** The line index, or undefined for a file with `\r`. */
	lineIndex(): LineIndex | undefined {
		if (this.index === null) this.index = LineIndex.of(this.content);
		return this.index;
	}

	/** Charges `characters` of searching; past the bound the call is refused, nothing written. */
	readonly spend = (characters: number): void => {
		this.left -= characters;
		if (this.left >= 0) return;
		const most = Math.max(1, Math.floor(MAX_PATCH_SEARCH_CHARS / Math.max(1, this.content.length)));
		throw new ToolError(
			`The patch has ${this.hunkCount.toLocaleString("en-US")} hunks for ${this.path} (${this.content.length.toLocaleString("en-US")} characters); ` +
				`searching for them passed apply_patch's bound at hunk ${this.hunk.toLocaleString("en-US")}. ` +
				`Hunks whose lines are not found exactly and once (or that change a single line) are sought through the rest of the file: at most ${most.toLocaleString("en-US")} of those for a file this size in one call. ` +
				"Split the changes into several apply_patch calls, give each hunk lines that occur once in the file, or rewrite the file with write. No file was changed.",
			{ reason: "too-many-hunks", path: this.path, hunks: this.hunkCount, hunk: this.hunk, most },
		);
	};
}

/**
 * Finds `request` in the file at or after `from` with edit's matching ladder (exact, line
 * endings, trailing whitespace, Unicode look-alikes, indentation, inner whitespace), unique there.
 * When it misses, the whole file is searched for the diagnosis, so line numbers are the file's.
 */
function locateFrom(search: FileSearch, from: number, request: EditRequest, pick: "unique" | "first" | "last") {
	const { content } = search;
	search.spend(content.length - from);
	const context = new MatchContext(from === 0 ? content : content.slice(from));
	try {
		const located = locateEdit(context, { ...request, replaceAll: pick !== "unique" });
		const all = located.occurrences;
		const occurrences = pick === "last" ? all.slice(-1) : pick === "first" ? all.slice(0, 1) : all;
		return {
			strategy: located.strategy,
			occurrences: occurrences.map((occurrence) => ({
				...occurrence,
				start: occurrence.start + from,
				end: occurrence.end + from,
			})),
		};
	} catch (error) {
		if (from === 0 || !(error instanceof ToolError)) throw error;
		search.spend(from);
		const whole = new MatchContext(content);
		const earlier = (() => {
			try {
				return locateEdit(whole, { ...request, replaceAll: true }).occurrences[0];
			} catch (inner) {
				throw inner instanceof ToolError ? inner : error;
			}
		})();
		const [line] = earlier ? lineNumbersOf(content, [earlier.start]) : [];
		throw new ToolError(
			`its lines are found only at line ${line}, before the place of the hunk above it. Hunks apply in file order: put them in the order their lines appear in the file.`,
		);
	}
}

/** Where the hunk's `@@` anchors lead: the offset just after the last anchor's line. */
function afterAnchors(search: FileSearch, from: number, hunk: PatchHunk): number {
	const { content } = search;
	let cursor = from;
	for (const anchor of hunk.anchors) {
		let start = content.indexOf(anchor, cursor);
		let end = start + anchor.length;
		search.spend((start === -1 ? content.length : end) - cursor);
		if (start === -1) {
			const located = locateFrom(search, cursor, { oldString: anchor, newString: anchor, replaceAll: true }, "first");
			const first = located.occurrences[0];
			if (!first) throw new ToolError(`the @@ line "${anchor}" is not in the file after the previous hunk.`);
			start = first.start;
			end = first.end;
		}
		const newline = content.indexOf("\n", end);
		cursor = newline === -1 ? content.length : newline + 1;
	}
	return cursor;
}

/** Splits text into lines, each with its line break. */
function linesWithBreaks(text: string): string[] {
	return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/**
 * The text that replaces a matched span: context lines as the file has them (a tolerant match
 * must not rewrite their whitespace or quotes), added lines from the (re-indented) replacement in
 * the file's line endings. When the line counts do not line up, the whole replacement.
 */
function keepContextLines(matched: string, replacement: string, hunk: PatchHunk, ending: "\n" | "\r\n"): string {
	const original = linesWithBreaks(matched);
	const added = linesWithBreaks(replacement);
	const oldCount = hunk.kinds.replaceAll("+", "").length;
	const newCount = hunk.kinds.replaceAll("-", "").length;
	if (original.length !== oldCount || added.length !== newCount) return withLineEnding(replacement, ending);
	const pieces: string[] = [];
	let oldIndex = 0;
	let newIndex = 0;
	for (const kind of hunk.kinds) {
		if (kind === " ") {
			pieces.push(original[oldIndex++] as string);
			newIndex++;
		} else if (kind === "-") oldIndex++;
		else pieces.push(withLineEnding(added[newIndex++] as string, ending));
	}
	return pieces.join("");
}

/** The span one hunk replaces, and its text in the file's line endings. */
function planHunk(search: FileSearch, from: number, hunk: PatchHunk): { span: Span; strategy: EditMatchStrategy } {
	const { content } = search;
	const cursor = afterAnchors(search, from, hunk);
	const { oldText, newText } = hunk;
	const source = stringSource(content);
	if (oldText === "") {
		// Only added lines: after the anchors, or, without any, at the end of the file.
		const at = hunk.anchors.length > 0 ? cursor : content.length;
		const needsBreak = at > 0 && content.charCodeAt(at - 1) !== 10;
		const ending = lineEndingNear(source, Math.max(0, at - 1));
		return {
			span: { start: at, end: at, text: withLineEnding((needsBreak ? "\n" : "") + newText, ending) },
			strategy: "exact",
		};
	}
	// The plain case, found by the line index: the hunk's exact lines, once after the cursor.
	const indexed = hunk.endOfFile ? undefined : search.lineIndex()?.findUnique(oldText, cursor, search.spend);
	const located =
		indexed !== undefined
			? {
					strategy: "exact" as const,
					occurrences: [{ start: indexed, end: indexed + oldText.length, replacement: newText }],
				}
			: locateFrom(
					search,
					cursor,
					{ oldString: oldText, newString: newText, replaceAll: false },
					hunk.endOfFile ? "last" : "unique",
				);
	const occurrence = located.occurrences[0];
	if (!occurrence) throw new ToolError("its lines are not in the file.");
	const ending = lineEndingNear(source, occurrence.start);
	const text = keepContextLines(content.slice(occurrence.start, occurrence.end), occurrence.replacement, hunk, ending);
	// Lines "\n…" matched just after a CR: take the CR into the span, or "\r\r\n" would result.
	const splitsCrlf =
		text.startsWith("\r\n") &&
		content.charCodeAt(occurrence.start) === 10 &&
		content.charCodeAt(occurrence.start - 1) === 13;
	return {
		span: { start: splitsCrlf ? occurrence.start - 1 : occurrence.start, end: occurrence.end, text },
		strategy: located.strategy,
	};
}

/**
 * Applies the hunks of one Update File to `content`: each located, in order, after the one before
 * it (and after its `@@` lines), uniquely there; all or nothing. Inserted text takes the file's
 * line endings; every byte outside the replaced spans is kept. Throws a `ToolError` naming the
 * file, the hunk and, for a miss, the nearest match with its line.
 */
export function planFilePatch(path: string, content: string, hunks: readonly PatchHunk[]): FilePatchPlan {
	const search = new FileSearch(path, content, hunks.length);
	const spans: Span[] = [];
	const strategies: EditMatchStrategy[] = [];
	let cursor = 0;
	for (const hunk of hunks) {
		try {
			search.nextHunk(hunk.number);
			const { span, strategy } = planHunk(search, cursor, hunk);
			spans.push(span);
			strategies.push(strategy);
			cursor = span.end;
		} catch (error) {
			if (error instanceof ToolError && !isSearchRefusal(error))
				throw hunkError(path, hunk, error.message, error.details);
			throw error;
		}
	}
	const pieces: string[] = [];
	const replacements: AppliedReplacement[] = [];
	let copied = 0;
	let length = 0;
	for (const [index, span] of spans.entries()) {
		const kept = content.slice(copied, span.start);
		pieces.push(kept, span.text);
		const newStart = length + kept.length;
		length = newStart + span.text.length;
		replacements.push({ editIndex: index, start: span.start, end: span.end, newStart, newEnd: length });
		copied = span.end;
	}
	pieces.push(content.slice(copied));
	return { content: pieces.join(""), replacements, strategies };
}

function isSearchRefusal(error: ToolError): boolean {
	return (error.details as { reason?: unknown } | undefined)?.reason === "too-many-hunks";
}
