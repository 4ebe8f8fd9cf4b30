import { hasFullWidth, mapLookAlikes, type Normalization, type NormalizedText, normalizeText } from "./normalize.js";

/**
 * The file's text and the views of it the matching ladder needs, each computed once on first use
 * and shared by every edit of a call (so ten edits do not normalize a large file ten times).
 */
export class MatchContext {
	/** The file's text (without BOM). */
	readonly content: string;
	private readonly normalized = new Map<string, NormalizedText>();
	private starts: number[] | undefined;
	private keys: string[] | undefined;
	private folded: string | undefined;
	private readonly memos = new Map<string, unknown>();

	constructor(content: string) {
		this.content = content;
	}

	/** The content under `normalization`, with its position map. */
	normalizedBy(normalization: Normalization): NormalizedText {
		const key = `${normalization.lineEndings}${normalization.trailingWhitespace}${normalization.unicode}`;
		let view = this.normalized.get(key);
		if (!view) {
			view = normalizeText(this.content, normalization);
			this.normalized.set(key, view);
		}
		return view;
	}

	/**
	 * The text to look for runs of letters and digits in: the content, or, when the file has
	 * full-width forms, the content with look-alikes mapped (same offsets: the mapping is one for one).
	 */
	searchable(): string {
		if (this.folded === undefined)
			this.folded = hasFullWidth(this.content) ? mapLookAlikes(this.content) : this.content;
		return this.folded;
	}

	/** `compute()`'s result, computed once per context under `key` (a view of the content a rung needs). */
	memo<T>(key: string, compute: () => T): T {
		if (!this.memos.has(key)) this.memos.set(key, compute());
		return this.memos.get(key) as T;
	}

	/** Offsets where each line starts. */
	lineStarts(): number[] {
		if (!this.starts) {
			const starts = [0];
			const text = this.content;
			for (let index = text.indexOf("\n"); index !== -1; index = text.indexOf("\n", index + 1)) starts.push(index + 1);
			// A final line break does not start another line.
			if (starts.length > 1 && starts[starts.length - 1] === text.length) starts.pop();
			this.starts = starts;
		}
		return this.starts;
	}

	/** Each line with look-alikes mapped and surrounding whitespace removed: what the indentation rung compares. */
	lineKeys(): string[] {
		if (!this.keys) {
			const starts = this.lineStarts();
			const text = this.content;
			this.keys = starts.map((start, index) => {
				const next = starts[index + 1];
				const end = next === undefined ? text.length : next;
				return mapLookAlikes(text.slice(start, end)).trim();
			});
		}
		return this.keys;
	}
}
