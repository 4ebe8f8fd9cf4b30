import { structuredPatch } from "diff";
import type { AppliedReplacement } from "../splice.js";
import { lineNumbersIn, type TextSource } from "../text-source.js";
import { boundLongLines } from "./long-lines.js";

/** The compact diff of an edit. */
export interface EditDiff {
	/**
	 * Unified diff of the changed regions only, with `---`/`+++` headers; empty when nothing changed.
	 * A line longer than 1,000 characters is shown as a window around its change, with markers
	 * saying how many characters were cut.
	 */
	text: string;
	/** 1-based number, in the new file, of the first line that differs (0 when none). */
	firstChangedLine: number;
	/** Lines added and removed. */
	added: number;
	removed: number;
	/**
	 * Changed lines counted but not made into diff lines (a region past ~2 MB of them); the text
	 * then ends with one line saying so. 0 when the diff is whole.
	 */
	notShownLines: number;
}

/** What `diffEdit` compares, and how much it shows around each change. */
export interface DiffEditOptions {
	/** The text before the edit. */
	original: TextSource;
	/** The text after the edit. */
	updated: TextSource;
	/** The spans replaced, in order, with where each landed in `updated`. */
	replacements: readonly AppliedReplacement[];
	/** The path written in the `---`/`+++` headers. */
	path: string;
	/** Lines of unchanged context around each change. Default: 3. */
	contextLines?: number;
	/** Beyond this many edit operations a region is shown as "all old lines out, all new lines in". Default: 500. */
	maxEditLength?: number;
}

/** The defaults of `DiffEditOptions` (documented on each field). */
const diffDefaults = { contextLines: 3, maxEditLength: 500 } satisfies Partial<DiffEditOptions>;

interface Region {
	oldStart: number;
	oldEnd: number;
	newStart: number;
	newEnd: number;
	/** Line breaks the region's replacements add (negative: remove). */
	lineDelta: number;
}

function lineStartIn(text: TextSource, position: number): number {
	return position <= 0 ? 0 : text.lastIndexOfNewline(position - 1) + 1;
}

function linesBefore(text: TextSource, position: number, count: number): number {
	let start = lineStartIn(text, position);
	for (let index = 0; index < count && start > 0; index++) start = lineStartIn(text, start - 1);
	return start;
}

function linesAfter(text: TextSource, position: number, count: number): number {
	let end = text.indexOfNewline(position);
	end = end === -1 ? text.length : end + 1;
	for (let index = 0; index < count && end < text.length; index++) {
		const newline = text.indexOfNewline(end);
		end = newline === -1 ? text.length : newline + 1;
	}
	return end;
}

/**
 * The regions of the original around each replacement (with context), merged where they touch,
 * and where each lands in the new text. Outside the replaced spans both texts are identical, so a
 * region's new bounds are its old ones shifted by the length change before them.
 */
function regionsOf(
	original: TextSource,
	updated: TextSource,
	replacements: readonly AppliedReplacement[],
	contextLines: number,
): Region[] {
	const regions: Region[] = [];
	for (const replacement of replacements) {
		const lineDelta =
			updated.countNewlines(replacement.newStart, replacement.newEnd) -
			original.countNewlines(replacement.start, replacement.end);
		const oldStart = linesBefore(original, replacement.start, contextLines);
		const lastPosition = Math.max(replacement.start, replacement.end - 1);
		const oldEnd = linesAfter(original, lastPosition, contextLines);
		const region: Region = {
			oldStart,
			oldEnd,
			newStart: oldStart + (replacement.newStart - replacement.start),
			newEnd: oldEnd + (replacement.newEnd - replacement.end),
			lineDelta,
		};
		const last = regions[regions.length - 1];
		if (last && region.oldStart <= last.oldEnd) {
			last.oldEnd = region.oldEnd;
			last.newEnd = region.newEnd;
			last.lineDelta += lineDelta;
		} else {
			regions.push(region);
		}
	}
	return regions;
}

/**
 * Most lines a region may have on either side to be given to jsdiff: it splits both texts into
 * lines before it gives up at `maxEditLength`, and a region of 400,000 lines (an edit replacing a
 * 10 MB file's content) cost ~100 MB there. Beyond, the region is shown whole, as past `maxEditLength`.
 */
const MAX_DIFFED_REGION_LINES = 20_000;

/**
 * Most characters of diff lines one region shown whole makes, each side half; past it the rest of
 * its lines are counted, not made (a call keeps at most 1 MB of diff and shows 50 KB).
 */
const MAX_WHOLE_REGION_CHARS = 2 * 2 ** 20;

interface WholeRegionHunk {
	lines: string[];
	oldLines: number;
	newLines: number;
	/** Lines of each side counted but not made (past `MAX_WHOLE_REGION_CHARS`). */
	removedNotShown: number;
	addedNotShown: number;
}

/** A region as "all old lines out, all new lines in", its lines made up to a bound and the rest counted. */
function wholeRegionHunk(oldText: string, newText: string): WholeRegionHunk {
	const side = (text: string, marker: string, into: string[]): { count: number; notShown: number } => {
		let count = 0;
		let notShown = 0;
		let budget = MAX_WHOLE_REGION_CHARS / 2;
		for (let start = 0; start < text.length; ) {
			const newline = text.indexOf("\n", start);
			const end = newline === -1 ? text.length : newline;
			count++;
			if (budget >= end - start) {
				into.push(`${marker}${text.slice(start, end)}`);
				budget -= end - start + 1;
			} else {
				budget = -1;
				notShown++;
			}
			start = end + 1;
		}
		return { count, notShown };
	};
	const lines: string[] = [];
	const removed = side(oldText, "-", lines);
	const added = side(newText, "+", lines);
	return {
		lines,
		oldLines: removed.count,
		newLines: added.count,
		removedNotShown: removed.notShown,
		addedNotShown: added.notShown,
	};
}

/** Lines of `text` (a final line without `\n` counts), without splitting it. */
function lineCountOf(text: string): number {
	let count = 0;
	for (let index = text.indexOf("\n"); index !== -1; index = text.indexOf("\n", index + 1)) count++;
	return text === "" || text.endsWith("\n") ? count : count + 1;
}

/**
 * A unified diff of the changed regions only: each replacement with a few lines of context, so its
 * cost follows the size of the change, never the size of the file.
 */
export function diffEdit(options: DiffEditOptions): EditDiff {
	const { original, updated, replacements, path } = options;
	const contextLines = options.contextLines ?? diffDefaults.contextLines;
	const maxEditLength = options.maxEditLength ?? diffDefaults.maxEditLength;
	const regions = regionsOf(original, updated, replacements, contextLines);
	const oldLines = lineNumbersIn(
		original,
		regions.map((region) => region.oldStart),
	);
	// Before a region both texts differ only by the earlier regions' replacements, so the new
	// line numbers follow from the old ones without a second pass over the new text.
	let shift = 0;
	const newLines = regions.map((region, index) => {
		const line = (oldLines[index] ?? 1) + shift;
		shift += region.lineDelta;
		return line;
	});
	const output: string[] = [`--- ${path}`, `+++ ${path}`];
	let firstChangedLine = 0;
	let added = 0;
	let removed = 0;
	let notShown = 0;
	for (const [index, region] of regions.entries()) {
		const oldText = original.slice(region.oldStart, region.oldEnd);
		const newText = updated.slice(region.newStart, region.newEnd);
		const oldBase = (oldLines[index] ?? 1) - 1;
		const newBase = (newLines[index] ?? 1) - 1;
		const diffed =
			lineCountOf(oldText) <= MAX_DIFFED_REGION_LINES && lineCountOf(newText) <= MAX_DIFFED_REGION_LINES
				? structuredPatch("a", "b", oldText, newText, undefined, undefined, { context: contextLines, maxEditLength })
				: undefined;
		const hunks: { oldStart: number; newStart: number; oldLines: number; newLines: number; lines: string[] }[] =
			diffed?.hunks ?? [];
		if (!diffed) {
			const whole = wholeRegionHunk(oldText, newText);
			hunks.push({ oldStart: 1, newStart: 1, ...whole });
			removed += whole.removedNotShown;
			added += whole.addedNotShown;
			notShown += whole.removedNotShown + whole.addedNotShown;
		}
		for (const hunk of hunks) {
			const oldStart = oldBase + hunk.oldStart;
			const newStart = newBase + hunk.newStart;
			output.push(`@@ -${oldStart},${hunk.oldLines} +${newStart},${hunk.newLines} @@`);
			let newLine = newStart;
			for (const line of boundLongLines(hunk.lines)) {
				// The model reads the diff; a CR at the end of every line of a CRLF file is noise.
				output.push(line.endsWith("\r") ? line.slice(0, -1) : line);
				const marker = line[0];
				if (marker === "+") added++;
				if (marker === "-") removed++;
				if ((marker === "+" || marker === "-") && firstChangedLine === 0) firstChangedLine = Math.max(1, newLine);
				if (marker === " " || marker === "+") newLine++;
			}
		}
	}
	if (added === 0 && removed === 0) return { text: "", firstChangedLine: 0, added, removed, notShownLines: 0 };
	if (notShown > 0) output.push(`[… ${notShown.toLocaleString("en-US")} more changed lines not shown …]`);
	return { text: output.join("\n"), firstChangedLine, added, removed, notShownLines: notShown };
}
