import { countLines } from "../../../engine/index.js";
import type { GrepLine } from "../../../workspace/index.js";
import { sortPaths } from "../../../workspace/index.js";
import { cutAroundMatch } from "./cut-line.js";

/** Lines not searched that a result names; more are counted by none (the first few tell the story). */
const MAX_LONG_LINES_NAMED = 10;

/** Limits of a `GrepCollector`. */
export interface GrepCollectorOptions {
	/** Most match lines to keep. */
	limit: number;
	/** Context lines per side the search was asked for (0 = none; groups are then not divided). */
	context: number;
	/** Longest line shown in full, in characters. */
	maxLineLength: number;
}

/** The formatted lines of a grep result. */
export interface GrepOutput {
	/** `path:line: text` / `path-line- text` lines, `--` between groups. Empty when nothing matched. */
	text: string;
	/** Files with at least one kept match. */
	fileCount: number;
	/** True when at least one long line was cut. */
	linesCut: boolean;
	/** Binary files that hold a match, whose lines are not shown (sorted). */
	binaryFiles: string[];
	/** Lines too long to be searched (`path:line`, the first few, in arrival order). */
	longLines: string[];
	/** Context lines per side in `text`: the asked-for context, or less when `formatWithin` lowered it. */
	context: number;
	/** The lines of `text` file by file (what the digest of a cut result fits and counts). */
	blocks: GrepFileBlock[];
}

/**
 * Gathers streamed grep lines up to the match limit and prints them: files sorted by path (so
 * both backends and every run agree), lines in order, `--` between groups that are not adjacent.
 * Only kept lines are held in memory.
 */
export class GrepCollector {
	/** Match lines kept. */
	matchCount = 0;
	/** True once a match beyond the limit was seen: matches were really left out. */
	limitReached = false;
	protected readonly files = new Map<string, GrepLine[]>();
	protected readonly binaryFiles = new Set<string>();
	protected readonly longLines: string[] = [];
	private lastMatch: GrepLine | undefined;

	constructor(protected readonly options: GrepCollectorOptions) {}

	/** Takes a batch; returns false once the limit is passed and the search should stop. */
	add(lines: readonly GrepLine[]): boolean {
		for (const line of lines) {
			if (this.noteUnshown(line)) continue;
			if (line.kind === "match") {
				if (this.matchCount >= this.options.limit) {
					this.limitReached = true;
					this.dropOrphanContext();
					return false;
				}
				this.matchCount++;
				this.lastMatch = line;
			}
			this.keep(line);
		}
		return true;
	}

	/** Notes a binary file that matches or a line not searched; true when `line` is one of those. */
	protected noteUnshown(line: GrepLine): boolean {
		if (line.kind === "binary") this.binaryFiles.add(line.path);
		else if (line.kind === "long-line") {
			if (this.longLines.length < MAX_LONG_LINES_NAMED) this.longLines.push(`${line.path}:${line.lineNumber}`);
		} else return false;
		return true;
	}

	/** Holds a line under its file, after the lines of that file kept before it. */
	protected keep(line: GrepLine): void {
		const fileLines = this.files.get(line.path);
		if (fileLines) fileLines.push(line);
		else this.files.set(line.path, [line]);
	}

	/** Context lines that only led up to the first match left out belong to nothing shown. */
	private dropOrphanContext(): void {
		const last = this.lastMatch;
		for (const [path, lines] of this.files) {
			if (last && path === last.path) {
				const limitLine = last.lineNumber + this.options.context;
				while (lines.length > 0 && (lines[lines.length - 1] as GrepLine).lineNumber > limitLine) lines.pop();
			} else if (!lines.some((line) => line.kind === "match")) {
				this.files.delete(path);
			}
		}
	}

	/**
	 * The printed result, fitted to the output budget: when the context asked for would push
	 * matches out of it (a model asking for `context: 5000` would see only lines before the first
	 * match), the context is lowered to the most that fits. With no room even for the matches
	 * alone, the full context is returned and the caller cuts it.
	 */
	formatWithin(budget: { maxLines: number; maxBytes: number }): GrepOutput {
		const fits = (output: GrepOutput) =>
			countLines(output.text) <= budget.maxLines && Buffer.byteLength(output.text) <= budget.maxBytes;
		const full = this.format(this.options.context);
		if (this.options.context === 0 || fits(full)) return full;
		let best: GrepOutput | undefined;
		let low = 0;
		let high = this.options.context - 1;
		while (low <= high) {
			const middle = (low + high) >> 1;
			const output = this.format(middle);
			if (fits(output)) {
				best = output;
				low = middle + 1;
			} else {
				high = middle - 1;
			}
		}
		return best ?? full;
	}

	/** The printed result with `context` lines per side (at most what was collected). */
	format(context = this.options.context): GrepOutput {
		const blocks = this.formatBlocks(context);
		return {
			text: joinGrepBlocks(blocks, this.options.context > 0),
			fileCount: blocks.length,
			linesCut: blocks.some((block) => block.linesCut),
			binaryFiles: sortPaths([...this.binaryFiles]),
			longLines: [...this.longLines],
			context,
			blocks,
		};
	}

	/** The printed lines file by file, in path order (files with a kept match only), for fitting them to a budget. */
	formatBlocks(context = this.options.context): GrepFileBlock[] {
		const blocks: GrepFileBlock[] = [];
		for (const path of sortPaths([...this.files.keys()])) {
			const all = this.files.get(path) as GrepLine[];
			if (!all.some((line) => line.kind === "match")) continue;
			const lines = context < this.options.context ? withinContext(all, context) : all;
			const block: GrepFileBlock = { path, lines: [], linesCut: false };
			let previous: number | undefined;
			for (const line of lines) {
				if (this.options.context > 0 && previous !== undefined && line.lineNumber !== previous + 1) {
					block.lines.push({ text: "--", matches: 0, lineNumber: previous });
				}
				previous = line.lineNumber;
				const { text, cut } = cutAroundMatch(line.text, line.matchStart, this.options.maxLineLength);
				block.linesCut ||= cut;
				const mark = line.kind === "match" ? ":" : "-";
				block.lines.push({
					text: `${path}${mark}${line.lineNumber}${mark} ${text}`,
					matches: line.kind === "match" ? 1 : 0,
					lineNumber: line.lineNumber,
				});
			}
			blocks.push(block);
		}
		return blocks;
	}
}

/** One printed line of a grep result. */
export interface GrepPrintedLine {
	/** `path:line: text`, `path-line- text`, `--`, or a marker standing for collapsed lines. */
	text: string;
	/** Matches the line stands for: 1 for a match line, 0 for context, more for a collapsed run. */
	matches: number;
	/** The file line it shows (for `--`, the line before it). */
	lineNumber: number;
	/** True for a marker standing for a run of near-identical matches. Default: false. */
	collapsed?: boolean;
}

/** A file's printed lines. */
export interface GrepFileBlock {
	/** The file, relative to the search root. */
	path: string;
	/** Its lines in order, `--` between groups that are not adjacent. */
	lines: GrepPrintedLine[];
	/** True when at least one long line was cut around its match. */
	linesCut: boolean;
}

/** The text of printed blocks: with context, files are divided by `--` as groups are. */
export function joinGrepBlocks(blocks: readonly GrepFileBlock[], grouped: boolean): string {
	const texts = blocks.map((block) => block.lines.map((line) => line.text).join("\n"));
	return texts.join(grouped ? "\n--\n" : "\n");
}

/** A file's lines (in order) without the context lines farther than `context` from every match. */
function withinContext(lines: readonly GrepLine[], context: number): GrepLine[] {
	const nearNext = new Array<boolean>(lines.length).fill(false);
	let nextMatch = Number.POSITIVE_INFINITY;
	for (let index = lines.length - 1; index >= 0; index--) {
		const line = lines[index] as GrepLine;
		if (line.kind === "match") nextMatch = line.lineNumber;
		nearNext[index] = nextMatch - line.lineNumber <= context;
	}
	const kept: GrepLine[] = [];
	let lastMatch = Number.NEGATIVE_INFINITY;
	for (const [index, line] of lines.entries()) {
		if (line.kind === "match") lastMatch = line.lineNumber;
		if (line.kind === "match" || nearNext[index] || line.lineNumber - lastMatch <= context) kept.push(line);
	}
	return kept;
}
