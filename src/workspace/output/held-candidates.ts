import { LINE_BYTES } from "./candidate-lines.js";

/** Lines of one chunk held undecoded: a copy of the chunk from the first of them on, and their starts in it. */
interface Block {
	bytes: Buffer;
	starts: number[];
	/** Lines at the front that later ones pushed out. */
	dropped: number;
}

/**
 * The last `capacity` candidate lines seen, examined only when the output ends. A chunk that
 * brings `capacity` of its own replaces all of them at once and keeps them undecoded (one copy of
 * its bytes from the first of them on), so a flood of warnings costs a copy per chunk, not a
 * string per line. At most one such block is held: only a newer one could push it out whole.
 */
export class HeldCandidates {
	private block: Block | undefined;
	/** Decoded lines after the block's, a ring from `ringStart` once the block is gone and it is full. */
	private readonly ring: string[] = [];
	private ringStart = 0;

	constructor(private readonly capacity: number) {}

	/** Lines held now. */
	get size(): number {
		return this.blockLeft() + this.ring.length;
	}

	/** Holds `line` after the others; returns true when the oldest one had to go. */
	push(line: string): boolean {
		const blockLeft = this.blockLeft();
		if (blockLeft + this.ring.length < this.capacity) {
			this.ring.push(line);
			return false;
		}
		if (this.block && blockLeft > 0) {
			this.block.dropped++;
			if (this.block.dropped === this.block.starts.length) this.block = undefined;
			this.ring.push(line);
			return true;
		}
		this.ring[this.ringStart] = line;
		this.ringStart = (this.ringStart + 1) % this.capacity;
		return true;
	}

	/**
	 * Holds `capacity` lines of `chunk` (their `starts`, in order; whole lines before `end`) in place
	 * of all others; returns true when any were held before.
	 */
	replaceWith(chunk: Buffer, starts: readonly number[], end: number): boolean {
		const replaced = this.size > 0;
		const from = starts[0] ?? end;
		this.block = {
			bytes: Buffer.from(chunk.subarray(from, end)),
			starts: starts.map((start) => start - from),
			dropped: 0,
		};
		this.ring.length = 0;
		this.ringStart = 0;
		return replaced;
	}

	/** The held lines in order, decoded from their first LINE_BYTES bytes; holds none afterwards. */
	drain(): string[] {
		const lines: string[] = [];
		if (this.block) {
			const { bytes, starts, dropped } = this.block;
			for (const start of starts.slice(dropped)) {
				const lineEnd = bytes.indexOf(10, start);
				lines.push(bytes.toString("utf8", start, Math.min(lineEnd, start + LINE_BYTES)));
			}
		}
		lines.push(...this.ring.slice(this.ringStart), ...this.ring.slice(0, this.ringStart));
		this.block = undefined;
		this.ring.length = 0;
		this.ringStart = 0;
		return lines;
	}

	private blockLeft(): number {
		return this.block ? this.block.starts.length - this.block.dropped : 0;
	}
}
