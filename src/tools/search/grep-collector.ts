import { cutAroundMatch } from "./cut-line.js";
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
	private lastMatch: GrepLine | undefined;

	constructor(private readonly options: GrepCollectorOptions) {}

	/** Takes a batch; returns false once the limit is passed and the search should stop. */
	add(lines: readonly GrepLine[]): boolean {
		for (const line of lines) {
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
		return { text: out.join("\n"), fileCount, linesCut };
	}
}

/**
 * Orders paths segment by segment (`/` sorts before every other character), so a folder's
 * files stay together: `a/b`, `a/c/d`, `a-b`. No allocation per comparison.
 */
export function comparePaths(left: string, right: string): number {
	const length = Math.min(left.length, right.length);
	for (let index = 0; index < length; index++) {
		let x = left.charCodeAt(index);
		let y = right.charCodeAt(index);
		if (x === y) continue;
		if (x === 0x2f) x = -1;
		if (y === 0x2f) y = -1;
		return x - y;
	}
	return left.length - right.length;
}

interface FolderNode {
	/** Names of the files directly in the folder. */
	files: string[];
	/** Sub-folders by name. */
	folders: Map<string, FolderNode>;
}

/**
 * Sorts paths in `comparePaths` order, fast enough for a big listing: the paths go into a tree
 * of folders and each folder's names are sorted on their own (short strings, plain `<`), so
 * there is no JavaScript comparator walking long shared prefixes a few hundred thousand times.
 */
export function sortPaths(paths: readonly string[]): string[] {
	const root: FolderNode = { files: [], folders: new Map() };
	for (const path of paths) {
		let folder = root;
		let start = 0;
		let slash = path.indexOf("/");
		while (slash !== -1) {
			const name = path.slice(start, slash);
			let next = folder.folders.get(name);
			if (!next) {
				next = { files: [], folders: new Map() };
				folder.folders.set(name, next);
			}
			folder = next;
			start = slash + 1;
			slash = path.indexOf("/", start);
		}
		folder.files.push(path.slice(start));
	}
	const sorted: string[] = [];
	const byName = (left: { name: string }, right: { name: string }) =>
		left.name < right.name ? -1 : left.name > right.name ? 1 : 0;
	const visit = (folder: FolderNode, prefix: string) => {
		const entries: { name: string; folder?: FolderNode }[] = folder.files.map((name) => ({ name }));
		for (const [name, sub] of folder.folders) entries.push({ name, folder: sub });
		entries.sort(byName);
		for (const entry of entries) {
			if (entry.folder) visit(entry.folder, `${prefix}${entry.name}/`);
			else sorted.push(prefix + entry.name);
		}
	};
	visit(root, "");
	return sorted;
}
