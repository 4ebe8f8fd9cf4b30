/** A small seeded generator, so a failure of a random-edit test can be replayed. */
export function seededRandom(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state * 1664525 + 1013904223) >>> 0;
		return state / 2 ** 32;
	};
}

/** `text` with up to 7 characters removed at `start` and up to two of `pieces` put there. */
export function spliceRandomPieces(text: string, start: number, next: () => number, pieces: readonly string[]): string {
	const removed = next() < 0.5 ? 0 : Math.floor(next() * 8);
	const inserted = Array.from(
		{ length: Math.floor(next() * 3) },
		() => pieces[Math.floor(next() * pieces.length)],
	).join("");
	return text.slice(0, start) + inserted + text.slice(start + removed);
}
