/** The result of `cutAroundMatch`. */
export interface CutLine {
	/** The line, or the window of it around the match with markers for what was left out. */
	text: string;
	/** True when the line was cut. */
	cut: boolean;
}

/** How much of the window goes before the match, so the match reads with some lead-in. */
const LEAD_IN = 0.2;

/**
 * Cuts a line longer than `maxLength` characters to a window of `maxLength` that shows the match
 * (starting at character `matchStart`; the start of the line when unknown), and marks both cut
 * ends with how many characters are missing. Never splits a surrogate pair.
 */
export function cutAroundMatch(line: string, matchStart: number | undefined, maxLength: number): CutLine {
	if (line.length <= maxLength) return { text: line, cut: false };
	let start = Math.max(0, Math.min((matchStart ?? 0) - Math.floor(maxLength * LEAD_IN), line.length - maxLength));
	let end = start + maxLength;
	if (isLowSurrogate(line.charCodeAt(start))) start++;
	if (isLowSurrogate(line.charCodeAt(end))) end--;
	const head = start > 0 ? `[… ${start} chars] ` : "";
	const tail = end < line.length ? ` [${line.length - end} chars …]` : "";
	return { text: `${head}${line.slice(start, end)}${tail}`, cut: true };
}

function isLowSurrogate(code: number): boolean {
	return code >= 0xdc00 && code <= 0xdfff;
}
