import { cutText } from "../../../engine/index.js";

/** The result of `cutAroundMatch`. */
export interface CutLine {
	/** The line, or the window of it around the match with markers for what was left out. */
	text: string;
	/** True when the line was cut. */
	cut: boolean;
}

/**
 * Cuts a line longer than `maxLength` characters to a window of `maxLength` that shows the match
 * (starting at character `matchStart`; the start of the line when unknown), and marks both cut
 * ends with how many characters are missing — the engine's `cutText` window. Never splits a
 * surrogate pair.
 */
export function cutAroundMatch(line: string, matchStart: number | undefined, maxLength: number): CutLine {
	const { text, truncated } = cutText(line, { maxLength, around: matchStart ?? 0 });
	return { text, cut: truncated };
}
