import type { GrepLine } from "../../../workspace/index.js";

/** How much a search goes on counting after its limit, for the digest of what was not shown. */
export interface GrepEarlyStopBounds {
	/** Matches counted past the limit at most. Default: 1,000. */
	extraMatches?: number;
	/**
	 * Files with a match counted past the limit's last file at most. Default: 150, more than the
	 * digest's tally keeps one by one (`limit + 100` files), so its folder summary has some to sum,
	 * and more than its listing has room for (60 lines). Every line counted is read and parsed after
	 * the answer is known, for the digest alone.
	 */
	extraFiles?: number;
}

/** Where a search that stopped early stopped: the first match it did not take. */
export interface GrepStopPoint {
	/** The file (relative to the search root). */
	path: string;
	/** The line of that match. */
	lineNumber: number;
}

/**
 * Stops a search whose files arrive in path order once it has its first `limit` matches, their
 * context, and a bounded count beyond them (what the digest says about the rest), instead of
 * searching the whole tree. The cut falls on a line, never between batches, so the result is
 * the same on every call and on both backends, however their output was chunked.
 */
export class GrepEarlyStop {
	/** Set once the search should stop: the first match not taken. */
	stoppedAt: GrepStopPoint | undefined;
	/** False while the files may arrive in any order (then nothing stops early). */
	enabled = false;
	private matches = 0;
	private limitMatch: GrepLine | undefined;
	private extraMatches = 0;
	private extraFiles = 0;
	private lastMatchPath: string | undefined;
	private readonly maxExtraMatches: number;
	private readonly maxExtraFiles: number;

	/**
	 * @param limit The matches the result keeps.
	 * @param context Context lines per side: the last kept match's lines after it are still taken.
	 */
	constructor(
		private readonly limit: number,
		private readonly context: number,
		bounds: GrepEarlyStopBounds = {},
	) {
		this.maxExtraMatches = bounds.extraMatches ?? 1000;
		this.maxExtraFiles = bounds.extraFiles ?? 150;
	}

	/** How many lines of `batch` to take: all of them, or fewer once the search should stop (`stoppedAt` is then set). */
	take(batch: readonly GrepLine[]): number {
		if (!this.enabled || this.stoppedAt) return this.stoppedAt ? 0 : batch.length;
		for (const [index, line] of batch.entries()) {
			if (line.kind !== "match") continue;
			if (this.limitMatch === undefined) {
				this.matches++;
				if (this.matches === this.limit) this.limitMatch = line;
			} else if (this.beyondBounds(line)) {
				this.stoppedAt = { path: line.path, lineNumber: line.lineNumber };
				return index;
			} else {
				this.extraMatches++;
				if (line.path !== this.lastMatchPath && line.path !== this.limitMatch.path) this.extraFiles++;
			}
			this.lastMatchPath = line.path;
		}
		return batch.length;
	}

	/** True for a match past the kept matches' context and past the bounds of counting on. */
	private beyondBounds(line: GrepLine): boolean {
		const last = this.limitMatch as GrepLine;
		const pastContext = line.path !== last.path || line.lineNumber > last.lineNumber + this.context;
		if (!pastContext) return false;
		if (this.extraMatches >= this.maxExtraMatches) return true;
		return line.path !== this.lastMatchPath && this.extraFiles >= this.maxExtraFiles;
	}
}
