// The closest region of the file to an old_string no rung of the ladder found, and what differs: a
// renamed identifier, other quotes, a changed literal, a line more or less. The miss then teaches the
// model the one thing to change, instead of "read the file again" (a wasted turn, and often the same
// mistake). Bounded: files over 4 MB and old_strings over 200 lines are not searched, and at most
// MAX_LINE_COMPARISONS line pairs are scored per miss.
import { diffWordsWithSpace } from "diff";

/** Where the closest text is, and what differs from old_string there. */
export interface ClosestRegion {
	/** 1-based first line of the region. */
	line: number;
	/** Lines it spans (as many as old_string). */
	lineCount: number;
	/** Up to four differences of old_string against the region, each `"x" where the file has "y"`. */
	differences: string[];
}

const MAX_CONTENT = 4 * 2 ** 20;
const MAX_NEEDLE_LINES = 200;
const MAX_LINE_COMPARISONS = 2_000_000;
/** The share of old_string's lines, by their words, a region must hold to be named. */
const MIN_SIMILARITY = 0.6;
/** A line less like its counterpart than this counts as unlike. */
const UNLIKE = 0.5;
const MAX_DIFFERENCES = 4;
/** Longest text the word diff compares (its cost grows with both lengths). */
const MAX_DIFF_TEXT = 8192;

function wordsOf(line: string): string[] {
	return line.match(/[\p{L}\p{N}_$]+|[^\s\p{L}\p{N}_$]/gu) ?? [];
}

/** Dice similarity of two lines' words and symbols (1 for two blank lines). */
function similarity(left: string[], right: string[]): number {
	if (left.length === 0 && right.length === 0) return 1;
	if (left.length === 0 || right.length === 0) return 0;
	const counts = new Map<string, number>();
	for (const word of left) counts.set(word, (counts.get(word) ?? 0) + 1);
	let shared = 0;
	for (const word of right) {
		const count = counts.get(word) ?? 0;
		if (count > 0) {
			shared++;
			counts.set(word, count - 1);
		}
	}
	return (2 * shared) / (left.length + right.length);
}

function shown(text: string): string {
	const cut = text.length > 60 ? `${text.slice(0, 60)}…` : text;
	return JSON.stringify(cut);
}

/** The word-level differences of old_string against the region, for the model. */
function differencesOf(needle: string, region: string): string[] {
	if (needle.length > MAX_DIFF_TEXT || region.length > MAX_DIFF_TEXT) return [];
	const parts = diffWordsWithSpace(needle, region);
	const found: string[] = [];
	for (let index = 0; index < parts.length && found.length < MAX_DIFFERENCES; index++) {
		const part = parts[index];
		if (!part || (!part.added && !part.removed)) continue;
		const next = parts[index + 1];
		if (part.removed && next?.added) {
			found.push(`${shown(part.value)} where the file has ${shown(next.value)}`);
			index++;
		} else if (part.removed) found.push(`${shown(part.value)}, which the file does not have`);
		else found.push(`the file has ${shown(part.value)} there`);
	}
	return found;
}

function withoutTrailingBlanks(text: string): string {
	let end = text.length;
	while (end > 0 && (text[end - 1] === " " || text[end - 1] === "\t" || text[end - 1] === "\r")) end--;
	return text.slice(0, end);
}

/** The region of the file most like old_string, line by line, or undefined when none is close. */
export function findClosestRegion(content: string, needle: string): ClosestRegion | undefined {
	if (content.length > MAX_CONTENT) return undefined;
	let first = 0;
	let end = needle.length;
	while (first < end && needle[first] === "\n") first++;
	while (end > first && needle[end - 1] === "\n") end--;
	const needleLines = needle.slice(first, end).split("\n");
	const count = needleLines.length;
	if (count > MAX_NEEDLE_LINES || needle.trim() === "") return undefined;
	const fileLines = content.split("\n");
	if (fileLines.length < count) return undefined;
	const needleWords = needleLines.map(wordsOf);
	const fileWords: (string[] | undefined)[] = new Array(fileLines.length);
	const wordsAt = (index: number) => {
		let words = fileWords[index];
		if (!words) {
			words = wordsOf(fileLines[index] ?? "");
			fileWords[index] = words;
		}
		return words;
	};
	let best = { start: -1, score: 0, tied: false };
	let budget = MAX_LINE_COMPARISONS;
	// A region's first or last line must look like old_string's: the rest is scored only there.
	for (let start = 0; start + count <= fileLines.length && budget > 0; start++) {
		const first = similarity(wordsAt(start), needleWords[0] ?? []);
		const last = count > 1 ? similarity(wordsAt(start + count - 1), needleWords[count - 1] ?? []) : first;
		budget -= 2;
		if (Math.max(first, last) < 0.5) continue;
		let total = first + (count > 1 ? last : 0);
		let unlike = (first < UNLIKE ? 1 : 0) + (count > 1 && last < UNLIKE ? 1 : 0);
		for (let offset = 1; offset < count - 1; offset++) {
			const score = similarity(wordsAt(start + offset), needleWords[offset] ?? []);
			total += score;
			if (score < UNLIKE) unlike++;
		}
		budget -= count;
		const score = total / count;
		// Most lines must look alike: shared brackets and semicolons alone do not make a region close.
		if (unlike > Math.floor(count / 3)) continue;
		if (score > best.score) best = { start, score, tied: false };
		else if (score === best.score) best.tied = true;
	}
	// Two regions equally close: naming one would mislead (the first-line hint lists every place).
	if (best.start < 0 || best.score < MIN_SIMILARITY || best.tied) return undefined;
	const needleText = needleLines.join("\n");
	let region = fileLines.slice(best.start, best.start + count).join("\n");
	// old_string may start or end inside a line: indentation it leaves out is not a difference.
	if (!/^\s/.test(needleText)) region = region.replace(/^[ \t]+/, "");
	// (A loop, not /[ \t]+$/: that regex is quadratic on a long run of blanks inside a line.)
	if (!/\s$/.test(needleText)) region = withoutTrailingBlanks(region);
	return { line: best.start + 1, lineCount: count, differences: differencesOf(needleText, region) };
}
