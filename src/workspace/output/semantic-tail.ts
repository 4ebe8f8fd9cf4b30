/**
 * Semantic truncation: when long output is cut by position, the lines a model needs from the
 * cut part (errors, warnings, stack frames, failing tests, test-runner and compiler summaries)
 * are kept anyway, and runs of repeated or near-identical lines collapse into one with a count.
 * The scanner sees every chunk once, in bounded memory: a byte-level prefilter finds candidate
 * lines, so plain output costs little more than the copy the tail already makes.
 *
 * What is kept depends on the output's lines alone, never on how it was read in chunks, so a
 * remote workspace can pick the candidates there (`grep -F` over the same needles) and send
 * only them, and get the very lines a local run keeps (see `src/remote/kept-lines.ts`):
 * - a candidate is a line whose first `LINE_BYTES` bytes hold one of `PREFILTER_NEEDLES` (`candidate-lines.ts`);
 * - a line ends at `\n`, at a skipped stretch, or at the end of the output;
 * - the first `EXAMINED_FIRST` and the last `EXAMINED_LAST` candidates are examined (decoded from
 *   their first `LINE_BYTES` bytes and tested); of those between them only their being there is said.
 */

import { firstCandidates, LINE_BYTES, lastCandidates, PREFILTER } from "./candidate-lines.js";
import { HeldCandidates } from "./held-candidates.js";

/** Lines kept from the start of the output, and from its end, at most (the first errors are often the cause). */
const KEEP_FIRST = 30;
const KEEP_LAST = 30;
/** Longest kept line, in characters (a quarter of the bytes looked at: colour codes are dropped first). */
const MAX_LINE = LINE_BYTES / 4;
/** Candidates examined from the start of the output at most. */
export const EXAMINED_FIRST = 1000;
/** Candidates examined from the end of the output at most: a flood of warnings costs a count, not a regex each. */
export const EXAMINED_LAST = 1000;

/** Bytes that begin the words worth keeping: error, warn, fail, panic, exception, traceback, pass, test, at. */
const TRIGGERS =
	/error|warn|fail|panic|exception|traceback|fatal|assert|passed|tests?\b|^\s+at |^\s+file "|✗|×|✘|●|^=+ |^-+ |^\s*\d+ (passing|failing|pending)|^FAIL|^ok\b|^not ok|npm err|error\[e\d+\]|^\s*\^+\s*$/i;
/** A kept line of the cut part. */
export interface KeptLine {
	/** The line (trimmed at the end, cut to MAX_LINE characters). */
	text: string;
	/** How many times it (or a line differing only in numbers) came in a row. */
	repeats: number;
}

/** What digits and hex ids are replaced with to tell near-identical lines apart. */
function shapeOf(line: string): string {
	return line.replace(/0x[0-9a-f]+|\d+/gi, "#");
}

/**
 * Watches a stream of output bytes for the lines worth keeping when the middle of the output is
 * cut away. Memory: at most KEEP_FIRST + KEEP_LAST short lines, EXAMINED_LAST candidates waiting
 * to be examined, and the start of one unfinished line.
 */
export class ImportantLines {
	private readonly first: KeptLine[] = [];
	private readonly last: KeptLine[] = [];
	/** The first LINE_BYTES bytes of the line the last chunk ended inside, while `carrying`. */
	private readonly carry = Buffer.allocUnsafe(LINE_BYTES);
	private carried = 0;
	private carrying = false;
	/** Candidates past the first EXAMINED_FIRST: the last EXAMINED_LAST of them. */
	private readonly held = new HeldCandidates(EXAMINED_LAST);
	/** Needles with more than EXAMINED_LAST lines in the last chunk (see `lastCandidates`). */
	private dense: ReadonlySet<Buffer> = new Set();
	/** Candidates taken so far (examined, waiting or counted). */
	private candidates = 0;
	/** Important lines seen in all. */
	seen = 0;

	/** Bytes of the output that were not scanned (a huge output's middle), said in the kept block. */
	unscannedBytes = 0;

	/** True when there were candidates between the first and the last examined ones (not examined). */
	unexamined = false;

	/** Skips `bytes` of output unscanned: the line they cut ends there, the next chunk starts a fresh one. */
	skip(bytes: number): void {
		this.endLine();
		this.unscannedBytes += bytes;
	}

	/** Takes the next chunk of output. */
	scan(chunk: Buffer): void {
		let start = 0;
		if (this.carrying) {
			const newline = chunk.indexOf(10);
			this.carryFrom(chunk, 0, newline === -1 ? chunk.length : newline);
			if (newline === -1) return;
			this.endLine();
			start = newline + 1;
		}
		const lastNewline = chunk.lastIndexOf(10);
		if (lastNewline + 1 > start) this.scanWholeLines(chunk, start, lastNewline + 1);
		const rest = Math.max(start, lastNewline + 1);
		if (rest < chunk.length) {
			this.carrying = true;
			this.carried = 0;
			this.carryFrom(chunk, rest, chunk.length);
		}
	}

	/**
	 * Takes a candidate line (decoded from its first LINE_BYTES bytes): examined at once among the
	 * first EXAMINED_FIRST, else held among the last EXAMINED_LAST until `end`. A remote workspace
	 * feeds the candidates its `grep` picked this way.
	 */
	takeCandidate(line: string): void {
		this.candidates++;
		if (this.candidates <= EXAMINED_FIRST) this.consider(line);
		else if (this.held.push(line)) this.unexamined = true;
	}

	/** Says there were candidates between the first and the last examined ones that were never taken. */
	markUnexamined(): void {
		this.unexamined = true;
	}

	/** The output ended: its last line (without a `\n`) is a line too, and the held candidates are examined. */
	end(): void {
		this.endLine();
		for (const line of this.held.drain()) this.consider(line);
	}

	private carryFrom(chunk: Buffer, from: number, to: number): void {
		const taken = Math.min(to - from, LINE_BYTES - this.carried);
		if (taken > 0) chunk.copy(this.carry, this.carried, from, from + taken);
		this.carried += Math.max(taken, 0);
	}

	/** Ends the carried line: a candidate when its start holds a needle. */
	private endLine(): void {
		if (!this.carrying) return;
		this.carrying = false;
		const start = this.carry.subarray(0, this.carried);
		if (PREFILTER.some((needle) => start.includes(needle))) this.takeCandidate(start.toString("utf8"));
	}

	/**
	 * Finds the candidate lines of `chunk[start, end)` (whole lines) with native searches: the
	 * first ones while the first EXAMINED_FIRST are not all taken, then the last EXAMINED_LAST of
	 * the rest (searched from the end, so a flood of warnings costs no search per line).
	 */
	private scanWholeLines(chunk: Buffer, start: number, end: number): void {
		let rest = start;
		const firstLeft = EXAMINED_FIRST - this.candidates;
		if (firstLeft > 0) {
			const starts = firstCandidates(chunk, { start, end, limit: firstLeft });
			for (const lineStart of starts) this.takeCandidate(this.lineAt(chunk, lineStart));
			if (starts.length < firstLeft) return;
			rest = chunk.indexOf(10, starts[firstLeft - 1] as number) + 1;
			if (rest >= end) return;
		}
		const { starts: last, more, dense } = lastCandidates(chunk, { start: rest, end, limit: EXAMINED_LAST }, this.dense);
		this.dense = dense;
		// Those before the last EXAMINED_LAST would only pass through the held ones.
		if (more) this.markUnexamined();
		if (last.length === EXAMINED_LAST) {
			this.candidates += last.length;
			if (this.held.replaceWith(chunk, last, end)) this.markUnexamined();
			return;
		}
		for (const lineStart of last) this.takeCandidate(this.lineAt(chunk, lineStart));
	}

	/** The examined text of the line at `lineStart`: its first LINE_BYTES bytes, decoded. */
	private lineAt(chunk: Buffer, lineStart: number): string {
		const lineEnd = chunk.indexOf(10, lineStart);
		return chunk.toString("utf8", lineStart, Math.min(lineEnd, lineStart + LINE_BYTES));
	}

	private consider(raw: string): void {
		const line = raw
			.replace(/\r$/, "")
			.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "")
			.trimEnd();
		if (line === "" || !TRIGGERS.test(line)) return;
		this.seen++;
		const text = line.length > MAX_LINE ? `${line.slice(0, MAX_LINE)}…` : line;
		const target = this.first.length < KEEP_FIRST ? this.first : this.last;
		const previous =
			target[target.length - 1] ?? (target === this.last ? this.first[this.first.length - 1] : undefined);
		if (previous && shapeOf(previous.text) === shapeOf(text)) {
			previous.repeats++;
			return;
		}
		target.push({ text, repeats: 1 });
		if (this.last.length > KEEP_LAST) this.last.shift();
	}

	/** The kept lines, in order, dropping those that `shown` (the tail the model sees) already holds. */
	keptOutside(shown: string): KeptLine[] {
		this.end();
		return [...this.first, ...this.last].filter((line) => !shown.includes(line.text));
	}

	/** Important lines seen outside `shown` (those the tail holds are not missing from the model's view). */
	seenOutside(shown: string): number {
		this.end();
		const inTail = [...this.first, ...this.last].filter((line) => shown.includes(line.text));
		return this.seen - inTail.reduce((sum, line) => sum + line.repeats, 0);
	}
}

/** How `collapseRuns` tells items apart and says what it hid. */
export interface CollapseRunsOptions<T> {
	/** The item's shape: items of one shape in a row form a run; undefined never collapses. */
	shapeOf(item: T): string | undefined;
	/** The item put between a run's first and last item, standing for the `hidden` ones between them. */
	marker(hidden: number, run: readonly T[]): T;
	/** Shortest run that collapses. Default: 4. */
	minimumRun?: number;
}

/**
 * Collapses runs of items of one shape into the run's first item, a marker, and its last item:
 * the one home of collapsing, for shell output lines and grep matches alike.
 */
export function collapseRuns<T>(
	items: readonly T[],
	options: CollapseRunsOptions<T>,
): { items: T[]; collapsed: number } {
	const minimumRun = options.minimumRun ?? 4;
	const out: T[] = [];
	let collapsed = 0;
	for (let index = 0; index < items.length; ) {
		const shape = options.shapeOf(items[index] as T);
		let end = index + 1;
		if (shape !== undefined) {
			while (end < items.length && options.shapeOf(items[end] as T) === shape) end++;
		}
		if (end - index >= minimumRun) {
			const run = items.slice(index, end);
			const hidden = run.length - 2;
			out.push(run[0] as T, options.marker(hidden, run), run[run.length - 1] as T);
			collapsed += hidden;
		} else {
			// Item by item, no copy of the run: most items are runs of one (2,000 lines of a tail).
			for (; index < end; index++) out.push(items[index] as T);
		}
		index = end;
	}
	return { items: out, collapsed };
}

/** The shape of a line worth collapsing with its like, or undefined for a line that is content (no words). */
export function wordyShapeOf(line: string): string | undefined {
	// What is left of a line is never longer than the line: a short one (a number) needs no regex.
	if (line.length < 8) return undefined;
	const shape = shapeOf(line);
	// Only lines with words collapse: a column of bare numbers (seq, a data dump) is content.
	return wordyLength(shape) >= 8 ? shape : undefined;
}

/** The ASCII characters of `[#\s\p{P}]`: '#', white space and punctuation (not symbols such as `$+<=>^|~`). */
const ASCII_NOT_WORDY = new Uint8Array(128);
for (const character of "#\t\n\v\f\r !\"%&'()*,-./:;?@[\\]_{}") ASCII_NOT_WORDY[character.charCodeAt(0)] = 1;

/**
 * Characters of `shape` outside `[#\s\p{P}]`. An ASCII line is counted by table: the Unicode
 * property class costs a regex compilation on a process's first use and a pass per line, which
 * the digest of a cut grep pays for hundreds of lines. Any other line takes the regex itself.
 */
function wordyLength(shape: string): number {
	let count = 0;
	for (let index = 0; index < shape.length; index++) {
		const code = shape.charCodeAt(index);
		if (code >= 128) return shape.replace(/[#\s\p{P}]/gu, "").length;
		if (ASCII_NOT_WORDY[code] === 0) count++;
	}
	return count;
}

/** Collapses runs of repeated or near-identical lines (differing only in numbers) into one line with a count. */
export function collapseRepeats(text: string, minimumRun = 4): { text: string; collapsed: number } {
	const { items, collapsed } = collapseRuns(text.split("\n"), {
		shapeOf: wordyShapeOf,
		marker: (hidden) =>
			`[… ${hidden} near-identical ${hidden === 1 ? "line" : "lines"} (differing only in numbers) collapsed]`,
		minimumRun,
	});
	return { text: items.join("\n"), collapsed };
}

/** How much of the output the kept lines were picked from (see `keptBlock`). */
export interface KeptBlockExtent {
	/** Bytes of the output's middle that were not scanned. Default: 0. */
	unscannedBytes?: number;
	/** Candidate lines between the first and the last examined ones were not examined. Default: false. */
	unexamined?: boolean;
}

/** The block put before a cut tail: what was kept from the part the model does not see, and where the rest is. */
export function keptBlock(
	kept: readonly KeptLine[],
	seen: number,
	where: string,
	extent: KeptBlockExtent = {},
): string {
	if (kept.length === 0) return "";
	const { unscannedBytes = 0, unexamined = false } = extent;
	const middle = unscannedBytes > 0 ? `; the middle ${Math.round(unscannedBytes / 2 ** 20)} MB was not scanned` : "";
	const lines = kept.map((line) => (line.repeats > 1 ? `${line.text}  [×${line.repeats}, near-identical]` : line.text));
	const keptTotal = kept.reduce((sum, line) => sum + line.repeats, 0);
	const more = seen > keptTotal ? ` (${keptTotal} of ${seen}: the first and the last)` : "";
	const skipped = unexamined ? "; more lines between the first and the last were not examined" : "";
	return `[Kept from the cut part of the output: error, warning, stack-trace, failing-test and summary lines${more}${skipped}; the rest is in ${where}${middle}]\n${lines.join("\n")}\n[End of kept lines; the last part of the output follows]\n`;
}
