/**
 * Diff lines too long to show whole (a minified file, a data line): a changed line is shown as a
 * window around what changed, an unchanged or unpaired one by its start, each with a marker that
 * says how much was cut. So an edit of a 1 MB line still shows the model its change.
 */

/** Longest diff line shown whole, in characters. */
const MAX_LINE = 1000;
/** Characters of unchanged text kept on each side of a change. */
const AROUND = 120;

function cutMarker(count: number): string {
	return `[… ${count} characters not shown …]`;
}

/** Length of the common prefix of `a` and `b`. */
function commonPrefix(a: string, b: string): number {
	const limit = Math.min(a.length, b.length);
	let index = 0;
	while (index < limit && a.charCodeAt(index) === b.charCodeAt(index)) index++;
	return index;
}

/** Length of the common suffix of `a` and `b`, not reaching into their first `prefix` characters. */
function commonSuffix(a: string, b: string, prefix: number): number {
	const limit = Math.min(a.length, b.length) - prefix;
	let count = 0;
	while (count < limit && a.charCodeAt(a.length - 1 - count) === b.charCodeAt(b.length - 1 - count)) count++;
	return count;
}

/** `text[from, to)` with its middle cut when it is longer than the limit. */
function bounded(text: string, from: number, to: number): string {
	if (to - from <= MAX_LINE) return text.slice(from, to);
	const half = MAX_LINE / 2;
	return `${text.slice(from, from + half)}${cutMarker(to - from - 2 * half)}${text.slice(to - half, to)}`;
}

/** A window of `line` (without its marker) from `start` to `end` (the changed part), with context. */
function windowOf(line: string, start: number, end: number): string {
	const from = Math.max(0, start - AROUND);
	const to = Math.min(line.length, end + AROUND);
	const before = from > 0 ? cutMarker(from) : "";
	const after = to < line.length ? cutMarker(line.length - to) : "";
	return `${before}${bounded(line, from, to)}${after}`;
}

/** One long line with no partner to compare with: its start. */
function headOf(line: string): string {
	return line.length <= MAX_LINE ? line : `${line.slice(0, MAX_LINE)}${cutMarker(line.length - MAX_LINE)}`;
}

/**
 * The lines of one hunk (each starting with ` `, `-` or `+`) with long lines bounded. A removed
 * line and the added line at the same place in the following run are compared: the window covers
 * what differs between them.
 */
export function boundLongLines(lines: readonly string[]): string[] {
	if (lines.every((line) => line.length <= MAX_LINE + 1)) return [...lines];
	const result: string[] = [];
	let index = 0;
	while (index < lines.length) {
		const line = lines[index] as string;
		if (line[0] !== "-") {
			result.push(line.length <= MAX_LINE + 1 ? line : `${line[0]}${headOf(line.slice(1))}`);
			index++;
			continue;
		}
		let removedEnd = index;
		while (removedEnd < lines.length && lines[removedEnd]?.[0] === "-") removedEnd++;
		let addedEnd = removedEnd;
		while (addedEnd < lines.length && lines[addedEnd]?.[0] === "+") addedEnd++;
		const removed = lines.slice(index, removedEnd).map((text) => text.slice(1));
		const added = lines.slice(removedEnd, addedEnd).map((text) => text.slice(1));
		const shownRemoved: string[] = [];
		const shownAdded: string[] = [];
		for (let pair = 0; pair < Math.max(removed.length, added.length); pair++) {
			const old = removed[pair];
			const updated = added[pair];
			if (old !== undefined && updated !== undefined && (old.length > MAX_LINE || updated.length > MAX_LINE)) {
				const prefix = commonPrefix(old, updated);
				const suffix = commonSuffix(old, updated, prefix);
				shownRemoved.push(windowOf(old, prefix, old.length - suffix));
				shownAdded.push(windowOf(updated, prefix, updated.length - suffix));
				continue;
			}
			if (old !== undefined) shownRemoved.push(headOf(old));
			if (updated !== undefined) shownAdded.push(headOf(updated));
		}
		result.push(...shownRemoved.map((text) => `-${text}`), ...shownAdded.map((text) => `+${text}`));
		index = addedEnd;
	}
	return result;
}
