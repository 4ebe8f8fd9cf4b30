import { formatSize } from "../../../engine/index.js";
import { collapseRuns, wordyShapeOf } from "../../../workspace/index.js";
import { type GrepFileBlock, joinGrepBlocks } from "./collector.js";
import type { GrepStopPoint } from "./early-stop.js";
import { fitGrepBlocks, type GrepBudget, sizeOfBlocks } from "./fit.js";
import type { FolderCount, GrepMatchTally, TalliedFile } from "./match-tally.js";

/** Room kept for the digest when the matches themselves fill the budget. */
const DIGEST_MAX_LINES = 60;
const DIGEST_MAX_BYTES = 8 * 1024;
/** Folder groups named in the summary of the files not listed. */
const MAX_FOLDER_GROUPS = 8;

/** Facts of a cut grep result, for programs and UIs (`details.cut`). */
export interface GrepCutDetails {
	/** Matches shown, counting those folded into "near-identical" markers. */
	shownMatches: number;
	/** Matches the search saw (a lower bound when `countsComplete` is false). */
	totalMatches: number;
	/** Files with a match shown. */
	shownFiles: number;
	/** Files with a match the search saw. */
	totalFiles: number;
	/** Matches folded into "near-identical" markers. */
	collapsedMatches: number;
	/** False when the search stopped early (at the limit, a timeout): the totals are lower bounds. */
	countsComplete: boolean;
	/** Where a folder search stopped soon after the limit (the first match it did not count); unset when it ran to its end. */
	stoppedAt?: GrepStopPoint;
	/** True when the output budget (not only the limit) left matches out. */
	outputCut: boolean;
}

/** What `digestGrepCut` needs to know. */
export interface GrepCutFacts {
	/** The collector's printed blocks, at the context shown. */
	blocks: readonly GrepFileBlock[];
	/** True when the result has context lines (groups divided by `--`). */
	grouped: boolean;
	/** Every match the search saw. */
	tally: GrepMatchTally;
	/** The output budget of the whole result. */
	budget: GrepBudget;
	/** The match limit applied. */
	limit: number;
	/** True when matches beyond the limit were left out. */
	limitReached: boolean;
	/** False when the search stopped before the end (see `GrepCutDetails.countsComplete`). */
	countsComplete: boolean;
	/** Where the search stopped soon after the limit, when it did not run to its end (see `GrepEarlyStop`). */
	stoppedAt?: GrepStopPoint;
	/** The searched path as the model named it (`.` for the working directory), to write a `path` it can pass back. */
	searchedPath: string;
	/** True when one file was searched. */
	singleFile: boolean;
}

/**
 * Semantic truncation of a grep result (the grep side of `output/semantic-tail.ts`): when the
 * limit or the output budget cuts matches, the matches are fitted to the budget (see
 * `fitGrepBlocks`), and a digest follows them: per file, how many matches were not shown and
 * where (the first match of a file not shown at all), the files beyond the digest summed by
 * folder, and how to get the rest. Both backends feed the same tally, so they give the same text.
 * Returns undefined when nothing was cut.
 */
export function digestGrepCut(facts: GrepCutFacts): { text: string; details: GrepCutDetails } | undefined {
	const { blocks, grouped, budget } = facts;
	const whole = sizeOfBlocks(blocks, grouped);
	const fitsWhole = whole.lines <= budget.maxLines && whole.bytes <= budget.maxBytes;
	if (fitsWhole && !facts.limitReached) return undefined;
	const reserve = {
		maxLines: Math.min(DIGEST_MAX_LINES, Math.floor(budget.maxLines / 4)),
		maxBytes: Math.min(DIGEST_MAX_BYTES, Math.floor(budget.maxBytes / 4)),
	};
	const fitted = fitsWhole
		? { blocks: [...blocks], cut: false }
		: fitGrepBlocks(blocks, grouped, {
				maxLines: Math.max(1, budget.maxLines - reserve.maxLines),
				maxBytes: Math.max(1, budget.maxBytes - reserve.maxBytes),
			});
	const shown = shownByFile(fitted.blocks);
	const body = joinGrepBlocks(fitted.blocks, grouped);
	const bodySize = sizeOfBlocks(fitted.blocks, grouped);
	const tallied = facts.tally.result();
	const details: GrepCutDetails = {
		shownMatches: [...shown.values()].reduce((sum, file) => sum + file.matches, 0),
		totalMatches: facts.tally.totalMatches,
		shownFiles: shown.size,
		totalFiles: facts.tally.totalFiles,
		collapsedMatches: fitted.blocks
			.flatMap((block) => block.lines)
			.reduce((sum, line) => sum + (line.collapsed ? line.matches : 0), 0),
		countsComplete: facts.countsComplete && facts.stoppedAt === undefined,
		outputCut: !fitsWhole,
	};
	if (facts.stoppedAt) details.stoppedAt = { ...facts.stoppedAt };
	const room = {
		maxLines: Math.min(reserve.maxLines, budget.maxLines - bodySize.lines),
		maxBytes: Math.min(reserve.maxBytes, budget.maxBytes - bodySize.bytes),
	};
	const candidates = cutFileLines(tallied.files, shown, facts.countsComplete, facts.stoppedAt);
	const head = header(details, facts, candidates.length > 0);
	const steps = nextSteps(facts, details, candidates[0]?.files[0]?.path, shown);
	// Room for the listing: what the digest may take, less its fixed lines and a folder summary.
	const listing = takeListing(candidates, {
		maxLines: room.maxLines - 3,
		maxBytes: room.maxBytes - Buffer.byteLength(head) - Buffer.byteLength(steps) - 300,
	});
	const folders = mergeFolders(tallied.folders, listing.unlisted);
	const lines = [head, ...listing.lines];
	const summary = summarizeFolders(folders);
	if (summary) lines.push(summary);
	if (facts.stoppedAt) lines.push(stopLine(facts.stoppedAt));
	lines.push(steps);
	return { text: `${body}\n\n${lines.join("\n")}`, details };
}

/** What a search that stopped soon after the limit knows, and how to see past it. */
function stopLine(stop: GrepStopPoint): string {
	return `[The search stopped at ${stop.path}:${stop.lineNumber}, soon after the limit: the counts above cover only what came before it. More matches exist from there on, and may exist in the files after it; to see them, narrow path or include, or raise limit.]`;
}

/** Matches shown per file, and the line of the last one. */
function shownByFile(blocks: readonly GrepFileBlock[]): Map<string, { matches: number; lastLine: number }> {
	const shown = new Map<string, { matches: number; lastLine: number }>();
	for (const block of blocks) {
		let matches = 0;
		let lastLine = 0;
		for (const line of block.lines) {
			if (line.matches === 0) continue;
			matches += line.matches;
			lastLine = line.lineNumber;
		}
		if (matches > 0) shown.set(block.path, { matches, lastLine });
	}
	return shown;
}

/** `1,100`: a count (a whole number, never negative) as `toLocaleString("en-US")` writes it, without its cost. */
function formatCount(count: number): string {
	return String(count).replace(/\B(?=(\d{3})+$)/g, ",");
}

function plural(count: number, word: string): string {
	return `${formatCount(count)} ${word}${count === 1 ? "" : word.endsWith("h") ? "es" : "s"}`;
}

function header(details: GrepCutDetails, facts: GrepCutFacts, listed: boolean): string {
	const why = [
		facts.limitReached ? `the limit of ${facts.limit} matches` : "",
		details.outputCut
			? `the output budget of ${formatSize(facts.budget.maxBytes)} or ${facts.budget.maxLines} lines`
			: "",
	]
		.filter(Boolean)
		.join(" and ");
	const atLeast = details.countsComplete ? "" : "at least ";
	const collapsed =
		details.collapsedMatches > 0
			? ` ${plural(details.collapsedMatches, "near-identical match")} are folded into the counts marked "collapsed".`
			: "";
	const follows = listed ? " Matches not shown, file by file (a file with none shown gives its first):" : "";
	const shown = plural(details.shownMatches, "match");
	if (facts.singleFile) {
		const total = details.countsComplete
			? ` of ${formatCount(details.totalMatches)}`
			: "; the file has more (a search of one file stops at the limit)";
		return `[Cut by ${why}: ${shown} shown${total}.${collapsed}]`;
	}
	const files = `from ${plural(details.shownFiles, "file")} of ${atLeast}${formatCount(details.totalFiles)}`;
	return `[Cut by ${why}: ${shown} shown of ${atLeast}${formatCount(details.totalMatches)}, ${files}.${collapsed}${follows}]`;
}

/** A line of the digest's listing and the files (with their matches not shown) it stands for. */
interface ListedLine {
	text: string;
	files: TalliedFile[];
}

/**
 * One line per file with matches not shown, in path order, with runs of near-identical lines
 * (files alike but for numbers) collapsed.
 */
function cutFileLines(
	files: readonly TalliedFile[],
	shown: ReadonlyMap<string, { matches: number; lastLine: number }>,
	countsComplete: boolean,
	stoppedAt: GrepStopPoint | undefined,
): ListedLine[] {
	const candidates: ListedLine[] = [];
	for (const file of files) {
		const seen = shown.get(file.path);
		const notShown = file.matches - (seen?.matches ?? 0);
		if (notShown <= 0) continue;
		// The file the search stopped in has more matches than were counted.
		const stop = stoppedAt?.path === file.path ? stoppedAt.lineNumber : undefined;
		const text = seen ? partlyShownLine(file, seen, notShown, countsComplete, stop) : unshownLine(file, stop);
		candidates.push({ text, files: [{ ...file, matches: notShown }] });
	}
	// collapseRuns asks for most shapes twice (as a run's next item, then as the next run's first).
	const shapes = new Map(candidates.map((line) => [line, wordyShapeOf(line.text)]));
	return collapseRuns(candidates, {
		shapeOf: (line) => (line.files.length === 1 ? shapes.get(line) : undefined),
		marker: (hidden, run) => {
			const alike = run.slice(1, -1).flatMap((line) => line.files);
			const matches = alike.reduce((sum, file) => sum + file.matches, 0);
			return {
				text: `[… ${plural(hidden, "more file")} alike but for numbers: ${plural(matches, "match")}]`,
				files: alike,
			};
		},
	}).items;
}

/** The listing lines that fit `room` (the first always does); the files of the others are returned. */
function takeListing(items: readonly ListedLine[], room: GrepBudget): { lines: string[]; unlisted: TalliedFile[] } {
	const lines: string[] = [];
	const unlisted: TalliedFile[] = [];
	let bytes = 0;
	for (const item of items) {
		const size = Buffer.byteLength(item.text) + 1;
		if (lines.length > 0 && (unlisted.length > 0 || lines.length >= room.maxLines || bytes + size > room.maxBytes)) {
			unlisted.push(...item.files);
			continue;
		}
		lines.push(item.text);
		bytes += size;
	}
	return { lines, unlisted };
}

function partlyShownLine(
	file: TalliedFile,
	seen: { matches: number; lastLine: number },
	notShown: number,
	countsComplete: boolean,
	stoppedAtLine: number | undefined,
): string {
	if (stoppedAtLine !== undefined) {
		return `${file.path}: ${plural(notShown, "more match")} after line ${seen.lastLine}, and more from line ${stoppedAtLine} on (the search stopped there)`;
	}
	if (!countsComplete) return `${file.path}: more matches after line ${seen.lastLine} (the search stopped there)`;
	const last = notShown === 1 ? "" : `, the last at line ${file.lastLine}`;
	return `${file.path}: ${plural(notShown, "more match")} after line ${seen.lastLine}${last}`;
}

function unshownLine(file: TalliedFile, stoppedAtLine: number | undefined): string {
	const where =
		stoppedAtLine !== undefined
			? `1 of at least ${file.matches + 1} matches, lines ${file.firstLine}–${file.lastLine} and more from line ${stoppedAtLine} on (the search stopped there)`
			: file.matches === 1
				? "its only match"
				: `1 of ${file.matches} matches, lines ${file.firstLine}–${file.lastLine}`;
	return `${file.path}:${file.firstLine}: ${file.sample}  [${where}]`;
}

/** The folder counts of every file not listed: the tally's, plus the listed-out files by their parent. */
function mergeFolders(folders: Map<string, FolderCount>, unlisted: readonly TalliedFile[]): Map<string, FolderCount> {
	for (const file of unlisted) {
		const slash = file.path.lastIndexOf("/");
		const key = slash === -1 ? "./" : file.path.slice(0, slash + 1);
		const count = folders.get(key) ?? { matches: 0, files: 0 };
		count.matches += file.matches;
		count.files++;
		folders.set(key, count);
	}
	return folders;
}

/** Folders truncated to their first `depth` segments (`./` stays), counts added up. */
function atDepth(folders: ReadonlyMap<string, FolderCount>, depth: number): Map<string, FolderCount> {
	const grouped = new Map<string, FolderCount>();
	for (const [folder, count] of folders) {
		const key = folder === "./" ? folder : `${folder.replace(/\/$/, "").split("/").slice(0, depth).join("/")}/`;
		const sum = grouped.get(key) ?? { matches: 0, files: 0 };
		sum.matches += count.matches;
		sum.files += count.files;
		grouped.set(key, sum);
	}
	return grouped;
}

/** The files not listed, summed by folder at the deepest level that names at most eight folders. */
function summarizeFolders(folders: ReadonlyMap<string, FolderCount>): string | undefined {
	if (folders.size === 0) return undefined;
	let matches = 0;
	let files = 0;
	for (const count of folders.values()) {
		matches += count.matches;
		files += count.files;
	}
	const deepest = Math.max(...[...folders.keys()].map((folder) => folder.split("/").length - 1));
	let groups = atDepth(folders, 1);
	for (let depth = deepest; depth >= 1; depth--) {
		const candidate = atDepth(folders, depth);
		if (candidate.size <= MAX_FOLDER_GROUPS) {
			groups = candidate;
			break;
		}
	}
	const ranked = [...groups].sort(
		(left, right) => right[1].matches - left[1].matches || (left[0] < right[0] ? -1 : left[0] > right[0] ? 1 : 0),
	);
	const named = ranked
		.slice(0, MAX_FOLDER_GROUPS)
		.map(([folder, count]) => `${folder} ${plural(count.matches, "match")} in ${plural(count.files, "file")}`);
	const others = ranked.length > MAX_FOLDER_GROUPS ? `, and ${ranked.length - MAX_FOLDER_GROUPS} more folders` : "";
	return `[… and ${plural(matches, "more match")} not listed, in ${plural(files, "file")}: ${named.join("; ")}${others}]`;
}

function nextSteps(
	facts: GrepCutFacts,
	details: GrepCutDetails,
	firstPath: string | undefined,
	shown: ReadonlyMap<string, { lastLine: number }>,
): string {
	if (facts.singleFile) {
		const lastShown = [...shown.values()][0]?.lastLine ?? 0;
		const more = facts.limitReached && !details.outputCut ? `, or raise limit (e.g. limit: ${facts.limit * 2})` : "";
		return `[For the rest: read ${facts.searchedPath} with offset: ${lastShown + 1}, or grep it with a more specific pattern${more}.]`;
	}
	const example =
		firstPath === undefined
			? ""
			: ` (e.g. path: ${JSON.stringify(facts.searchedPath === "." ? firstPath : `${facts.searchedPath.replace(/\/$/, "")}/${firstPath}`)})`;
	const steps = [
		`grep one file or folder by path${example}`,
		"narrow with include, exclude or a more specific pattern",
	];
	if (facts.limitReached && !details.outputCut) steps.push(`raise limit (e.g. limit: ${facts.limit * 2})`);
	if (details.outputCut) steps.push("lower context, or use find or ls to see which files to search");
	return `[For the rest: ${steps.join("; ")}.]`;
}
