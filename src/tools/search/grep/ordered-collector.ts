import type { GrepLine } from "../../../workspace/index.js";
import { comparePaths } from "../../../workspace/index.js";
import { GrepCollector, type GrepOutput } from "./collector.js";

/**
 * A `GrepCollector` whose `limit` keeps the first matches in path order, not the first to
 * arrive: ripgrep searches files in parallel, so "the first 100" would differ between identical
 * calls. When the backend promises path order, `GrepEarlyStop` ends the search soon after the
 * limit; otherwise it runs to the end (or the timeout). Memory stays bounded by the limit, as a
 * match past the kept ones is dropped at once and a better one evicts the last kept match.
 */
export class OrderedGrepCollector extends GrepCollector {
	/** Files cut at the limit: their later lines come after every kept match. */
	private readonly closed = new Set<string>();
	/**
	 * The last path (in path order) with a kept match: undefined while none is kept, null when it
	 * must be looked up again (a match was dropped). Kept up to date so that each line past the
	 * limit costs one comparison, not a pass over every kept file.
	 */
	private lastKept: string | undefined | null = undefined;

	/** Takes a batch; always asks for more (a later file may sort before the kept ones). */
	override add(lines: readonly GrepLine[]): boolean {
		for (const line of lines) {
			if (this.noteUnshown(line)) continue;
			if (this.closed.has(line.path)) {
				if (line.kind === "match") this.limitReached = true;
				else if (this.isAfterContext(line)) this.files.get(line.path)?.push(line);
				continue;
			}
			if (this.matchCount >= this.options.limit) {
				if (line.kind === "context" && this.isAfterContext(line)) {
					this.files.get(line.path)?.push(line);
					continue;
				}
				const last = this.lastKeptPath();
				if (last !== undefined && comparePaths(line.path, last) >= 0) {
					if (line.kind === "match") {
						this.limitReached = true;
						this.closed.add(line.path);
					}
					continue;
				}
				if (line.kind === "match" && last !== undefined) this.dropLastMatch(last);
			}
			if (line.kind === "match") {
				this.matchCount++;
				if (this.lastKept !== null && (this.lastKept === undefined || comparePaths(line.path, this.lastKept) > 0)) {
					this.lastKept = line.path;
				}
			}
			this.keep(line);
		}
		return true;
	}

	/** Prints what is kept, without context that belongs to no kept match. */
	override format(context = this.options.context): GrepOutput {
		this.tidy();
		return super.format(context);
	}

	/** A context line of a cut file that still follows its last kept match closely enough to be shown. */
	private isAfterContext(line: GrepLine): boolean {
		const lines = this.files.get(line.path);
		if (!lines) return false;
		for (let index = lines.length - 1; index >= 0; index--) {
			const kept = lines[index] as GrepLine;
			if (kept.kind === "match") return line.lineNumber <= kept.lineNumber + this.options.context;
		}
		return false;
	}

	private lastKeptPath(): string | undefined {
		if (this.lastKept === null) this.lastKept = this.findLastKeptPath();
		return this.lastKept;
	}

	private findLastKeptPath(): string | undefined {
		let last: string | undefined;
		for (const [path, lines] of this.files) {
			if (!lines.some((line) => line.kind === "match")) continue;
			if (last === undefined || comparePaths(path, last) > 0) last = path;
		}
		return last;
	}

	/** Gives up the last kept match (of the last file in path order), to make room for an earlier one. */
	private dropLastMatch(path: string): void {
		const lines = this.files.get(path) as GrepLine[];
		let index = lines.length - 1;
		while (index >= 0 && (lines[index] as GrepLine).kind !== "match") index--;
		lines.length = Math.max(0, index);
		this.lastKept = null;
		this.matchCount--;
		this.limitReached = true;
		this.closed.add(path);
	}

	/** Drops files without a kept match, and trailing context farther than `context` from the last match. */
	private tidy(): void {
		for (const [path, lines] of this.files) {
			let lastMatch = -1;
			for (let index = lines.length - 1; index >= 0; index--) {
				if ((lines[index] as GrepLine).kind === "match") {
					lastMatch = index;
					break;
				}
			}
			if (lastMatch === -1) {
				this.files.delete(path);
				continue;
			}
			const limitLine = (lines[lastMatch] as GrepLine).lineNumber + this.options.context;
			while (lines.length > lastMatch + 1 && (lines[lines.length - 1] as GrepLine).lineNumber > limitLine) lines.pop();
		}
	}
}
