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

/** Where a candidate search looks. */
interface Region {
	/** The first line's start. */
	start: number;
	/** Just past the last line's `\n`. */
	end: number;
	/** Lines wanted at most. */
	limit: number;
}

/**
 * The first `limit` candidate lines of `chunk[start, end)` (whole lines), in order: per needle
 * its first `limit` lines, merged. A line among the region's first `limit` candidates has fewer
 * than `limit` candidates before it, so fewer holding its needle: it is among that needle's.
 */
export function firstCandidates(chunk: Buffer, region: Region): number[] {
	const found: number[] = [];
	for (const needle of PREFILTER) found.push(...needleLines(chunk, needle, region).slice(0, region.limit));
	return merged(found).slice(0, region.limit);
}

/** What `lastCandidates` found. */
export interface LastCandidates {
	/** The starts of the region's last `limit` candidate lines, in order. */
	starts: number[];
	/** True when the region holds more than `limit` candidates. */
	more: boolean;
	/** The needles with more than `limit` lines here: searched from the end first in the next chunk. */
	dense: Set<Buffer>;
}

/**
 * The last `limit` candidate lines of `chunk[start, end)`, the same way from the end. A needle
 * with more than `limit` lines narrows the search of the others to its last `limit` (the region's
 * last ones lie there); one dense in the chunk before (`denseBefore`) is searched first, from the
 * end, so a flood of warnings costs a search of its last lines, not of every line.
 */
export function lastCandidates(chunk: Buffer, region: Region, denseBefore: ReadonlySet<Buffer>): LastCandidates {
	const found: number[] = [];
	const dense = new Set<Buffer>();
	let from = region.start;
	const order = [...PREFILTER].sort((a, b) => Number(denseBefore.has(b)) - Number(denseBefore.has(a)));
	for (const needle of order) {
		const window = { ...region, start: from };
		const lines = denseBefore.has(needle)
			? needleLinesFromEnd(chunk, needle, window)
			: lastNeedleLines(chunk, needle, window);
		const last = lines.slice(-region.limit);
		if (lines.length > region.limit) {
			dense.add(needle);
			from = Math.max(from, last[0] as number);
		}
		found.push(...last);
	}
	const starts = merged(found.filter((start) => start >= from));
	return { starts: starts.slice(-region.limit), more: dense.size > 0 || starts.length > region.limit, dense };
}

/** Line starts in order, each once. */
function merged(found: readonly number[]): number[] {
	const ordered = Float64Array.from(found).sort();
	const starts: number[] = [];
	for (let index = 0; index < ordered.length; index++) {
		if (index === 0 || ordered[index] !== ordered[index - 1]) starts.push(ordered[index] as number);
	}
	return starts;
}

/** The first `limit` + 1 candidate lines for `needle`, searched forwards. */
function needleLines(chunk: Buffer, needle: Buffer, region: Region): number[] {
	const lines: number[] = [];
	for (let at = chunk.indexOf(needle, region.start); at !== -1 && at < region.end && lines.length <= region.limit; ) {
		const lineStart = Math.max(chunk.lastIndexOf(10, at) + 1, region.start);
		// The line's first occurrence: one past its first bytes rules the line out.
		if (at + needle.length <= lineStart + LINE_BYTES) lines.push(lineStart);
		const lineEnd = chunk.indexOf(10, at);
		if (lineEnd === -1 || lineEnd + 1 >= region.end) break;
		at = chunk.indexOf(needle, lineEnd + 1);
	}
	return lines;
}

/**
 * The last `limit` + 1 candidate lines for `needle`: searched forwards (a backward search is
 * many times slower per byte), unless the needle is dense, then backwards from the end.
 */
function lastNeedleLines(chunk: Buffer, needle: Buffer, region: Region): number[] {
	const forward = needleLines(chunk, needle, { ...region, limit: 2 * region.limit });
	if (forward.length <= 2 * region.limit) return forward.slice(-(region.limit + 1));
	return needleLinesFromEnd(chunk, needle, region);
}

/** The last `limit` + 1 candidate lines for `needle`, searched backwards. */
function needleLinesFromEnd(chunk: Buffer, needle: Buffer, region: Region): number[] {
	const lines: number[] = [];
	for (
		let at = chunk.lastIndexOf(needle, region.end - 1);
		at !== -1 && at >= region.start && lines.length <= region.limit;
	) {
		const lineStart = Math.max(chunk.lastIndexOf(10, at) + 1, region.start);
		// The line's last occurrence: its first one counts, looked for only when this one lies past the first bytes.
		const first = at + needle.length <= lineStart + LINE_BYTES ? at : chunk.indexOf(needle, lineStart);
		if (first + needle.length <= lineStart + LINE_BYTES) lines.push(lineStart);
		if (lineStart <= region.start) break;
		at = chunk.lastIndexOf(needle, lineStart - 1);
	}
	return lines.reverse();
}
