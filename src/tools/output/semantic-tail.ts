/**
 * Semantic truncation: when long output is cut by position, the lines a model needs from the
 * cut part (errors, warnings, stack frames, failing tests, test-runner and compiler summaries)
 * are kept anyway, and runs of repeated or near-identical lines collapse into one with a count.
 * The scanner sees every chunk once, in bounded memory: a byte-level prefilter finds candidate
 * lines, so plain output costs little more than the copy the tail already makes.
 */

/** Lines kept from the start of the output, and from its end, at most (the first errors are often the cause). */
const KEEP_FIRST = 30;
const KEEP_LAST = 30;
/** Longest kept line, in characters. */
const MAX_LINE = 300;
/** Candidate lines examined per chunk at most: a chunk of nothing but warnings does not cost a regex per line. */
const MAX_CANDIDATES_PER_CHUNK = 200;

/** Bytes that begin the words worth keeping: error, warn, fail, panic, exception, traceback, pass, test, at. */
const TRIGGERS =
	/error|warn|fail|panic|exception|traceback|fatal|assert|passed|tests?\b|^\s+at |^\s+file "|✗|×|✘|●|^=+ |^-+ |^\s*\d+ (passing|failing|pending)|^FAIL|^ok\b|^not ok|npm err|error\[e\d+\]|^\s*\^+\s*$/i;
/** Cheap first test on raw bytes: the lowercase/uppercase variants of the triggers' key letters. */
const PREFILTER = [
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
].map((needle) => Buffer.from(needle));

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
 * cut away. Memory: at most KEEP_FIRST + KEEP_LAST short lines.
 */
export class ImportantLines {
	private readonly first: KeptLine[] = [];
	private readonly last: KeptLine[] = [];
	private carry = "";
	/** Important lines seen in all. */
	seen = 0;

	/** Bytes of the output that were not scanned (a huge output's middle), said in the kept block. */
	unscannedBytes = 0;

	/** Skips `bytes` of output unscanned: the next chunk starts a fresh line. */
	skip(bytes: number): void {
		this.carry = "";
		this.unscannedBytes += bytes;
	}

	/** Takes the next chunk of output. */
	scan(chunk: Buffer): void {
		const lastNewline = chunk.lastIndexOf(10);
		if (lastNewline === -1) {
			if (this.carry.length < MAX_LINE * 4) this.carry += chunk.toString("latin1", 0, MAX_LINE);
			return;
		}
		// The chunk's first line finishes the carried one: it was considered with it.
		const start = this.carry === "" ? 0 : chunk.indexOf(10) + 1;
		if (this.carry !== "") {
			this.consider(this.carry + chunk.toString("utf8", 0, Math.min(chunk.indexOf(10), MAX_LINE * 4)));
		}
		this.carry =
			lastNewline + 1 < chunk.length
				? chunk.toString("utf8", lastNewline + 1, Math.min(chunk.length, lastNewline + 1 + MAX_LINE * 4))
				: "";
		this.scanWholeLines(chunk, start, lastNewline);
	}

	/** Finds candidate lines in `chunk[start, end)` (whole lines) with native searches, then tests each. */
	private scanWholeLines(chunk: Buffer, start: number, end: number): void {
		const starts = new Set<number>();
		for (const needle of PREFILTER) {
			for (let at = chunk.indexOf(needle, start); at !== -1 && at < end; at = chunk.indexOf(needle, at + 1)) {
				const lineStart = chunk.lastIndexOf(10, at) + 1;
				starts.add(Math.max(lineStart, start));
				// Skip to the next line: one candidate per line per needle.
				const next = chunk.indexOf(10, at);
				if (next === -1 || next >= end) break;
				at = next;
				if (starts.size >= MAX_CANDIDATES_PER_CHUNK) break;
			}
			if (starts.size >= MAX_CANDIDATES_PER_CHUNK) break;
		}
		for (const lineStart of [...starts].sort((a, b) => a - b)) {
			let lineEnd = chunk.indexOf(10, lineStart);
			if (lineEnd === -1 || lineEnd > end) lineEnd = end;
			this.consider(chunk.toString("utf8", lineStart, Math.min(lineEnd, lineStart + MAX_LINE * 4)));
		}
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
		return [...this.first, ...this.last].filter((line) => !shown.includes(line.text));
	}

	/** Important lines seen outside `shown` (those the tail holds are not missing from the model's view). */
	seenOutside(shown: string): number {
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
		const run = items.slice(index, end);
		if (run.length >= minimumRun) {
			const hidden = run.length - 2;
			out.push(run[0] as T, options.marker(hidden, run), run[run.length - 1] as T);
			collapsed += hidden;
		} else {
			out.push(...run);
		}
		index = end;
	}
	return { items: out, collapsed };
}

/** The shape of a line worth collapsing with its like, or undefined for a line that is content (no words). */
export function wordyShapeOf(line: string): string | undefined {
	const shape = shapeOf(line);
	// Only lines with words collapse: a column of bare numbers (seq, a data dump) is content.
	return shape.replace(/[#\s\p{P}]/gu, "").length >= 8 ? shape : undefined;
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

/** The block put before a cut tail: what was kept from the part the model does not see, and where the rest is. */
export function keptBlock(kept: readonly KeptLine[], seen: number, where: string, unscannedBytes = 0): string {
	if (kept.length === 0) return "";
	const middle = unscannedBytes > 0 ? `; the middle ${Math.round(unscannedBytes / 2 ** 20)} MB was not scanned` : "";
	const lines = kept.map((line) => (line.repeats > 1 ? `${line.text}  [×${line.repeats}, near-identical]` : line.text));
	const keptTotal = kept.reduce((sum, line) => sum + line.repeats, 0);
	const more = seen > keptTotal ? ` (${keptTotal} of ${seen}: the first and the last)` : "";
	return `[Kept from the cut part of the output: error, warning, stack-trace, failing-test and summary lines${more}; the rest is in ${where}${middle}]\n${lines.join("\n")}\n[End of kept lines; the last part of the output follows]\n`;
}
