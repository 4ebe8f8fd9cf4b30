/**
 * A file's lines indexed by a hash of their text, so that a hunk's exact lines are found from the
 * places its rarest line occurs instead of by a search through the rest of the file. Built once
 * per file: a hash, a start and a place in the sorted order per line (12 bytes a line), no string.
 *
 * It answers only the plain case — one exact occurrence at or after a position, in a file without
 * `\r` — and says "ask the full search" for everything else (no line of the hunk's own, several
 * occurrences, a miss), so messages and the tolerant ladder stay those of edit's matching.
 */
export class LineIndex {
	/** Offset where each line starts; one more entry: the end of the text plus one. */
	private readonly starts: Uint32Array;
	private readonly hashes: Int32Array;
	/** Line numbers sorted by (hash, line). */
	private readonly order: Uint32Array;
	/** Whether the text ends with `\n` (its last line then has one, as a sought line needs). */
	private readonly endsWithNewline: boolean;

	private constructor(private readonly content: string) {
		const starts: number[] = [0];
		for (let index = content.indexOf("\n"); index !== -1; index = content.indexOf("\n", index + 1))
			starts.push(index + 1);
		this.endsWithNewline = content.endsWith("\n");
		const lineCount = this.endsWithNewline ? starts.length - 1 : starts.length;
		this.starts = Uint32Array.from(this.endsWithNewline ? starts : [...starts, content.length + 1]);
		this.hashes = new Int32Array(lineCount);
		for (let line = 0; line < lineCount; line++) {
			this.hashes[line] = hashOf(content, this.lineStart(line), this.lineEnd(line));
		}
		const hashes = this.hashes;
		this.order = Uint32Array.from({ length: lineCount }, (_, line) => line).sort(
			(a, b) => (hashes[a] as number) - (hashes[b] as number) || a - b,
		);
	}

	/** An index of `content`, or undefined when it has a `\r` (line endings are the ladder's to judge). */
	static of(content: string): LineIndex | undefined {
		return content.includes("\r") ? undefined : new LineIndex(content);
	}

	private get lineCount(): number {
		return this.hashes.length;
	}

	private lineStart(line: number): number {
		return this.starts[line] as number;
	}

	/** Where the line's text ends (at its `\n`, or the end of the text). */
	private lineEnd(line: number): number {
		return (this.starts[line + 1] as number) - 1;
	}

	/**
	 * The start of the one exact occurrence of `needle` (lines each ended by `\n`, at least two)
	 * at or after `from`, or undefined when there is none, more than one, or the needle is not of
	 * that shape: the caller then runs the full search. `spend` is charged for each place tried.
	 */
	findUnique(needle: string, from: number, spend: (characters: number) => void): number | undefined {
		if (!needle.endsWith("\n")) return undefined;
		const lines = needle.slice(0, -1).split("\n");
		// The first line may be the end of a file line; the others are whole lines.
		if (lines.length < 2) return undefined;
		const rarest = this.rarestLine(lines);
		if (rarest === undefined) return undefined;
		const [position, hash] = rarest;
		const firstLine = this.lineOf(from);
		let found: number | undefined;
		for (let rank = this.firstRank(hash, firstLine + position); rank < this.lineCount; rank++) {
			const candidate = this.order[rank] as number;
			if (this.hashes[candidate] !== hash) break;
			spend(needle.length);
			const start = this.matchAt(lines, candidate - position);
			if (start === undefined || start < from) continue;
			if (found !== undefined) return undefined;
			found = start;
		}
		return found;
	}

	/** The needle's whole line (not the first) whose hash the fewest file lines share, with its hash. */
	private rarestLine(lines: readonly string[]): [number, number] | undefined {
		let best: [number, number] | undefined;
		let bestCount = Number.POSITIVE_INFINITY;
		for (let position = 1; position < lines.length; position++) {
			const text = lines[position] as string;
			const hash = hashOf(text, 0, text.length);
			const count = this.firstRank(hash + 1, 0) - this.firstRank(hash, 0);
			if (count === 0) return undefined;
			if (count < bestCount) {
				best = [position, hash];
				bestCount = count;
			}
		}
		return best;
	}

	/** Where the needle's lines stand with its first line in file line `first`: the start, or undefined. */
	private matchAt(lines: readonly string[], first: number): number | undefined {
		if (first < 0 || first + lines.length > this.lineCount) return undefined;
		for (let position = 1; position < lines.length; position++) {
			const line = first + position;
			const text = lines[position] as string;
			if (this.lineEnd(line) - this.lineStart(line) !== text.length) return undefined;
			if (!this.content.startsWith(text, this.lineStart(line))) return undefined;
		}
		// Every line the needle covers is followed by `\n`, also its last.
		if (first + lines.length === this.lineCount && !this.endsWithNewline) return undefined;
		const head = lines[0] as string;
		const start = this.lineEnd(first) - head.length;
		if (start < this.lineStart(first) || !this.content.startsWith(head, start)) return undefined;
		return start;
	}

	/** The line holding offset `offset`. */
	private lineOf(offset: number): number {
		let low = 0;
		let high = this.lineCount;
		while (high - low > 1) {
			const middle = (low + high) >>> 1;
			if ((this.starts[middle] as number) <= offset) low = middle;
			else high = middle;
		}
		return low;
	}

	/** The first rank in `order` whose (hash, line) is at or after (`hash`, `line`). */
	private firstRank(hash: number, line: number): number {
		let low = 0;
		let high = this.lineCount;
		while (low < high) {
			const middle = (low + high) >>> 1;
			const at = this.order[middle] as number;
			const atHash = this.hashes[at] as number;
			if (atHash < hash || (atHash === hash && at < line)) low = middle + 1;
			else high = middle;
		}
		return low;
	}
}

/** FNV-1a over the UTF-16 units of `text` from `start` to `end`, as a signed 32-bit integer. */
function hashOf(text: string, start: number, end: number): number {
	let hash = 0x811c9dc5;
	for (let index = start; index < end; index++) {
		hash ^= text.charCodeAt(index);
		hash = Math.imul(hash, 0x01000193);
	}
	return hash | 0;
}
