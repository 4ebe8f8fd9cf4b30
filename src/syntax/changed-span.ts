/** Where two texts differ, as one span: the common prefix and suffix kept. */
export interface ChangedSpan {
	/** Offset of the first changed character (same in both texts). */
	start: number;
	/** End of the changed span in the old text. */
	oldEnd: number;
	/** End of the changed span in the new text. */
	newEnd: number;
}

/** The span where `after` differs from `before` (empty when they are equal). */
export function changedSpan(before: string, after: string): ChangedSpan {
	const shortest = Math.min(before.length, after.length);
	let start = 0;
	while (start < shortest && before.charCodeAt(start) === after.charCodeAt(start)) start++;
	let suffix = 0;
	while (
		suffix < shortest - start &&
		before.charCodeAt(before.length - 1 - suffix) === after.charCodeAt(after.length - 1 - suffix)
	)
		suffix++;
	return { start, oldEnd: before.length - suffix, newEnd: after.length - suffix };
}
