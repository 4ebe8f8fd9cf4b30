import { cutAroundMatch } from "./cut-line.js";
import { sortPaths } from "./sort-paths.js";
import type { GrepLine } from "./types.js";

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
	private readonly files = new Map<string, GrepLine[]>();
	private readonly binaryFiles = new Set<string>();
	private lastMatch: GrepLine | undefined;

	constructor(private readonly options: GrepCollectorOptions) {}

	/** Takes a batch; returns false once the limit is passed and the search should stop. */
	add(lines: readonly GrepLine[]): boolean {
		for (const line of lines) {
			if (line.kind === "binary") {
				this.binaryFiles.add(line.path);
				continue;
			}
			if (line.kind === "match") {
				if (this.matchCount >= this.options.limit) {
					this.limitReached = true;
					this.dropOrphanContext();
					return false;
				}
				this.matchCount++;
				this.lastMatch = line;
			}
			let fileLines = this.files.get(line.path);
			if (!fileLines) {
				fileLines = [];
				this.files.set(line.path, fileLines);
			}
			fileLines.push(line);
		}
		return true;
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

	/** The printed result. */
	format(): GrepOutput {
		const paths = sortPaths([...this.files.keys()]);
		const out: string[] = [];
		let linesCut = false;
		let fileCount = 0;
		for (const path of paths) {
			const lines = this.files.get(path) as GrepLine[];
			if (lines.some((line) => line.kind === "match")) fileCount++;
			let previous: number | undefined;
			for (const line of lines) {
				const separated = previous === undefined ? out.length > 0 : line.lineNumber !== previous + 1;
				if (this.options.context > 0 && separated) out.push("--");
				previous = line.lineNumber;
				const { text, cut } = cutAroundMatch(line.text, line.matchStart, this.options.maxLineLength);
				linesCut ||= cut;
				const mark = line.kind === "match" ? ":" : "-";
				out.push(`${path}${mark}${line.lineNumber}${mark} ${text}`);
			}
		}
		return { text: out.join("\n"), fileCount, linesCut, binaryFiles: sortPaths([...this.binaryFiles]) };
	}
}
