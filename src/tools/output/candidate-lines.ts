/**
 * The candidate lines of semantic truncation (see `semantic-tail.ts`): lines whose first
 * LINE_BYTES bytes hold one of the needles, found in a chunk with native searches. A remote
 * workspace finds the same lines with `grep -F` over the same needles (`src/remote/kept-lines.ts`).
 */

/** Bytes of a line looked at: its start, where a needle must lie and the examined text comes from. */
export const LINE_BYTES = 1200;

/** The cheap first test on raw bytes (a line holding none is no candidate): the key letters of semantic-tail's triggers. */
export const PREFILTER_NEEDLES: readonly string[] = [
	"rror",
	"RROR",
	"arn",
	"ARN",
	"ail",
	"AIL",
	"anic",
	"xception",
	"raceback",
	"atal",
	"ssert",
	"passed",
	"Tests",
	"   at ",
	"✗",
	"✘",
	"●",
];
/** The needles as bytes. */
export const PREFILTER = PREFILTER_NEEDLES.map((needle) => Buffer.from(needle));

/** Where `candidateStarts` searches. */
export interface CandidateSearch {
	/** The first line's start. */
	start: number;
	/** Just past the last line's `\n`. */
	end: number;
	/** Lines found per needle at most. */
	limit: number;
	/** Searches from the end: the last lines, not the first. */
	fromEnd: boolean;
}

/**
 * The starts of candidate lines in `chunk[start, end)`, in order: per needle the first (or last)
 * `limit` lines holding it within their first LINE_BYTES bytes, merged. Their first (or last)
 * `limit` are the region's first (or last) `limit` candidates: a line among those has fewer than
 * `limit` candidates before (after) it, so fewer holding its needle. `more` says a needle had more.
 */
export function candidateStarts(chunk: Buffer, search: CandidateSearch): { starts: number[]; more: boolean } {
	const found: number[] = [];
	let more = false;
	for (const needle of PREFILTER) {
		const lines = search.fromEnd ? lastNeedleLines(chunk, needle, search) : needleLines(chunk, needle, search);
		if (lines.length > search.limit) more = true;
		const from = search.fromEnd ? Math.max(lines.length - search.limit, 0) : 0;
		for (let index = from; index < Math.min(lines.length, from + search.limit); index++)
			found.push(lines[index] as number);
	}
	const ordered = Float64Array.from(found).sort();
	const starts: number[] = [];
	for (let index = 0; index < ordered.length; index++) {
		if (index === 0 || ordered[index] !== ordered[index - 1]) starts.push(ordered[index] as number);
	}
	return { starts, more };
}

/** The first `limit` + 1 candidate lines for `needle`, searched forwards. */
function needleLines(chunk: Buffer, needle: Buffer, search: CandidateSearch): number[] {
	const lines: number[] = [];
	for (let at = chunk.indexOf(needle, search.start); at !== -1 && at < search.end && lines.length <= search.limit; ) {
		const lineStart = Math.max(chunk.lastIndexOf(10, at) + 1, search.start);
		// The line's first occurrence: one past its first bytes rules the line out.
		if (at + needle.length <= lineStart + LINE_BYTES) lines.push(lineStart);
		const lineEnd = chunk.indexOf(10, at);
		if (lineEnd === -1 || lineEnd + 1 >= search.end) break;
		at = chunk.indexOf(needle, lineEnd + 1);
	}
	return lines;
}

/**
 * The last `limit` + 1 candidate lines for `needle`: searched forwards (a backward search is
 * many times slower per byte), unless the needle is dense, then backwards from the end.
 */
function lastNeedleLines(chunk: Buffer, needle: Buffer, search: CandidateSearch): number[] {
	const forward = needleLines(chunk, needle, { ...search, limit: 4 * search.limit });
	if (forward.length <= 4 * search.limit) return forward.slice(-(search.limit + 1));
	return needleLinesFromEnd(chunk, needle, search);
}

/** The last `limit` + 1 candidate lines for `needle`, searched backwards. */
function needleLinesFromEnd(chunk: Buffer, needle: Buffer, search: CandidateSearch): number[] {
	const lines: number[] = [];
	for (
		let at = chunk.lastIndexOf(needle, search.end - 1);
		at !== -1 && at >= search.start && lines.length <= search.limit;
	) {
		const lineStart = Math.max(chunk.lastIndexOf(10, at) + 1, search.start);
		if (chunk.indexOf(needle, lineStart) + needle.length <= lineStart + LINE_BYTES) lines.push(lineStart);
		if (lineStart <= search.start) break;
		at = chunk.lastIndexOf(needle, lineStart - 1);
	}
	return lines.reverse();
}
