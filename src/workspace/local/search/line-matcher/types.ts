/**
 * How the built-in search finds matches in a piece of text made of whole lines. Both engines
 * answer the same questions, so the walker does not know which one runs.
 */
export interface LineMatcher {
	/**
	 * The offset (UTF-16) of the first match in each line of `text` (split on `\n`, a trailing
	 * `\r` removed), -1 for a line without one; `null` when no line matches (the common case,
	 * answered by one pass over the whole text).
	 */
	firstMatches(text: string): Promise<number[] | null>;
	/** True when anything in `text` matches, lines being split on `\n` (a binary file's test). */
	test(text: string): Promise<boolean>;
	/** Frees what the matcher holds (a worker thread). Safe to call more than once. */
	close(): void;
}

/** Removes the `\r` of a `\r\n` line ending. */
export function stripCr(line: string): string {
	return line.endsWith("\r") ? line.slice(0, -1) : line;
}
