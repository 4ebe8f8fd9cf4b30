import { comparePaths } from "../../../search/sort-paths.js";
import type { GrepLine } from "../../../search/types.js";

/** A started ripgrep's lines, and how far it has read where that can be known. */
export interface GrepRun extends AsyncIterable<GrepLine[]> {
	/** The read calls it made so far (see `readCallsOf`); absent, or undefined, where they cannot be counted. */
	readCalls?(): number | undefined;
}

/** A started search whose lines may be held, started by its caller (so that one that cannot start rejects there). */
export interface StartedGrep {
	/** Its lines. */
	run: GrepRun;
	/** Ends it at once (its pending read then ends too). */
	stop(): void;
}

/** Bounds of what a `HeldGrep` may hold (see `PathOrderedGrepOptions`). */
export interface HeldGrepBounds {
	/** Most lines held. */
	maxHeldLines: number;
	/** Most characters of line text held. */
	maxHeldChars: number;
}

/**
 * How far `HeldGrep.readUntil` read: the search ended (every line held), the lines asked for are
 * held, it found more than may be held, it failed or was stopped, or the time given ran out.
 */
export type HeldOutcome = "ended" | "reached" | "full" | "failed" | "late";

/**
 * The lines of an every-thread search, held (bounded) so that they can be handed out sorted by
 * path once it ends. Read in steps: until a count of lines is held, then on to the end.
 */
export class HeldGrep {
	private readonly lines: GrepLine[] = [];
	private chars = 0;
	private readonly batches: AsyncIterator<GrepLine[]>;
	private outcome: HeldOutcome | undefined;
	/** A read still in flight when the time given ran out: the next `readUntil` takes it. */
	private pending: Promise<IteratorResult<GrepLine[]>> | undefined;

	constructor(
		private readonly search: StartedGrep,
		private readonly bounds: HeldGrepBounds,
	) {
		this.batches = search.run[Symbol.asyncIterator]();
	}

	/**
	 * Reads on until at least `count` lines are held, or the search ends, overflows or fails (then
	 * it is stopped), or `ms` pass (then it goes on running, unread, for a later call).
	 */
	async readUntil(count: number, ms?: number): Promise<HeldOutcome> {
		if (this.outcome) return this.outcome;
		let timer: NodeJS.Timeout | undefined;
		const late =
			ms === undefined ? undefined : new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), ms)));
		try {
			while (this.lines.length < count) {
				const next = this.pending ?? this.batches.next();
				this.pending = next;
				const result = late ? await Promise.race([next, late]) : await next;
				if (result === "late") return "late";
				this.pending = undefined;
				// Stopped meanwhile: whatever the read gave is not the search's end.
				if (this.outcome) return this.outcome;
				if (result.done) return this.end("ended");
				for (const line of result.value) {
					this.lines.push(line);
					this.chars += line.text.length;
				}
				if (this.lines.length > this.bounds.maxHeldLines || this.chars > this.bounds.maxHeldChars) {
					return this.end("full");
				}
			}
			return "reached";
		} catch {
			// Failed or stopped: the ordered search answers (and reports a failure of its own).
			return this.end("failed");
		} finally {
			clearTimeout(timer);
		}
	}

	/** Every line, sorted by path; stable: a file's lines keep ripgrep's order (each file's lines come together). */
	sorted(): GrepLine[] {
		return this.lines.sort((left, right) => comparePaths(left.path, right.path));
	}

	/** Stops the search (its ripgrep is killed) and its reading. */
	stop(): void {
		if (this.outcome !== "ended") this.outcome ??= "failed";
		this.search.stop();
		this.pending?.catch(() => {});
		this.batches.return?.().catch(() => {});
	}

	private end(outcome: HeldOutcome): HeldOutcome {
		this.outcome = outcome;
		if (outcome !== "ended") this.stop();
		return outcome;
	}
}
