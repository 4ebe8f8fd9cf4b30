import { countNewlines } from "../text-source.js";
import { MatchContext } from "./match-context.js";
import { mapLookAlikes } from "./normalize.js";

/**
 * Where a tolerant match of an old_string can be, found without normalizing the whole file. No
 * rung of the ladder changes a letter or digit, nor splits a run of them: each run of letters and
 * digits in old_string (look-alikes mapped) is in any match as it is. So the rarest long run marks
 * every place worth a look, and a run the file lacks at all rules every rung out at once. The
 * rungs then work on a few windows of lines around those places: the cost of a miss follows the
 * size of old_string and the number of those places, not the size of the file.
 */

/** More places than this and the windows would cover most of the file: the rungs take it whole. */
const MAX_PLACES = 64;

/** A window of whole lines of the file, as its own context, at `offset` in the file. */
export interface Window {
	context: MatchContext;
	offset: number;
}

/** What the candidates of one needle are. */
export type Candidates =
	/** Some run of old_string is nowhere in the file: no tolerant rung can match. */
	| { kind: "none" }
	/** These windows hold every place a line-keeping rung can match (and some context). */
	| { kind: "windows"; windows: Window[] }
	/** Every run is too common to narrow the search: the rungs take the whole file. */
	| { kind: "whole" };

/** The distinct runs of letters and digits of `needle` (look-alikes mapped), longest first. */
export function wordRuns(needle: string): string[] {
	const runs = new Set(mapLookAlikes(needle).split(/[^\p{L}\p{N}_$]+/u));
	runs.delete("");
	return [...runs].sort((a, b) => b.length - a.length);
}

/** Starts of `piece` in `text`, up to `limit + 1` of them (non-overlapping: a run is a whole word piece). */
function placesOf(text: string, piece: string, limit: number): number[] {
	const places: number[] = [];
	for (
		let index = text.indexOf(piece);
		index !== -1 && places.length <= limit;
		index = text.indexOf(piece, index + 1)
	) {
		places.push(index);
	}
	return places;
}

/**
 * The run to look for and its places: the longest run with at most `MAX_PLACES` places, or
 * "none" as soon as one run is absent. Counting stops past the limit, so a common run costs little.
 */
export function anchorPlaces(
	context: MatchContext,
	needle: string,
): { run: string; places: number[] } | "none" | "common" {
	const text = context.searchable();
	for (const run of wordRuns(needle)) {
		const places = placesOf(text, run, MAX_PLACES);
		if (places.length === 0) return "none";
		if (places.length <= MAX_PLACES) return { run, places };
	}
	return "common";
}

function lineStartBefore(text: string, position: number): number {
	return position <= 0 ? 0 : text.lastIndexOf("\n", position - 1) + 1;
}

function nextLineStart(text: string, position: number): number {
	const newline = text.indexOf("\n", position);
	return newline === -1 ? text.length : newline + 1;
}

/**
 * The windows of lines that hold every match of a needle whose lines map one to one onto file
 * lines (every rung but the near-match diagnosis): the anchor's line in the file, the needle's
 * lines before and after it, and one more line on each side, so that a window's edges look to a
 * rung as the file's do. Overlapping windows are merged.
 */
export function findCandidates(context: MatchContext, needle: string): Candidates {
	const anchor = anchorPlaces(context, needle);
	if (anchor === "none") return { kind: "none" };
	if (anchor === "common") return { kind: "whole" };
	const text = context.content;
	const mapped = mapLookAlikes(needle);
	const at = mapped.indexOf(anchor.run);
	// The anchor may sit on any needle line it occurs on; take the widest reach either way.
	const lastAt = mapped.lastIndexOf(anchor.run);
	const linesBefore = countNewlines(mapped, 0, lastAt) + 1;
	const linesAfter = countNewlines(mapped, at, mapped.length) + 1;
	const spans: { start: number; end: number }[] = [];
	for (const place of anchor.places) {
		let start = lineStartBefore(text, place);
		const previous = spans[spans.length - 1];
		for (let line = 0; line < linesBefore && start > 0 && (!previous || start > previous.end); line++) {
			start = lineStartBefore(text, start - 1);
		}
		let end = place;
		for (let line = 0; line <= linesAfter && end < text.length; line++) end = nextLineStart(text, end);
		if (previous && start <= previous.end) previous.end = Math.max(previous.end, end);
		else spans.push({ start, end });
	}
	const windows = spans.map((span) => ({
		context: new MatchContext(text.slice(span.start, span.end)),
		offset: span.start,
	}));
	return { kind: "windows", windows };
}
