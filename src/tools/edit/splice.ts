/** One span replaced by the plan, with where it lands in the new content. */
export interface AppliedReplacement {
	/** Index of the edit it came from. */
	editIndex: number;
	/** Span in the original content. */
	start: number;
	end: number;
	/** Span of the inserted text in the new content. */
	newStart: number;
	newEnd: number;
}

/** A replacement found in the original, before it is put in: its span and what goes there. */
export interface PendingReplacement<Piece> {
	/** Index of the edit it came from. */
	editIndex: number;
	/** Span in the original (string or byte offsets, matching `Piece`). */
	start: number;
	end: number;
	/** What replaces the span. */
	inserted: Piece;
}

/** The new content as pieces to join, where each replacement landed, and the joined length. */
export interface Splice<Piece> {
	/** The kept parts of the original and the inserted pieces, in order. */
	pieces: Piece[];
	/** Every replaced span with its place in the new content, ascending. */
	replacements: AppliedReplacement[];
	/** Length of the joined pieces. */
	length: number;
}

/**
 * Puts sorted replacements into the original, for text (`string`) and bytes (`Buffer`) alike;
 * `cut(start, end?)` takes a part of the original. Undefined when two replacements overlap.
 */
export function spliceReplacements<Piece extends { length: number }>(
	sorted: readonly PendingReplacement<Piece>[],
	cut: (start: number, end?: number) => Piece,
): Splice<Piece> | undefined {
	const pieces: Piece[] = [];
	const replacements: AppliedReplacement[] = [];
	let copied = 0;
	let length = 0;
	for (const { editIndex, start, end, inserted } of sorted) {
		if (start < copied) return undefined;
		const kept = cut(copied, start);
		pieces.push(kept, inserted);
		const newStart = length + kept.length;
		length = newStart + inserted.length;
		replacements.push({ editIndex, start, end, newStart, newEnd: length });
		copied = end;
	}
	const rest = cut(copied);
	pieces.push(rest);
	return { pieces, replacements, length: length + rest.length };
}
