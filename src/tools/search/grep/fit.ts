import { collapseRuns, wordyShapeOf } from "../../../workspace/index.js";
import type { GrepFileBlock, GrepPrintedLine } from "./collector.js";

/** A budget in lines and UTF-8 bytes. */
export interface GrepBudget {
	/** Most lines. */
	maxLines: number;
	/** Most bytes. */
	maxBytes: number;
}

/** Printed blocks fitted to a budget. */
export interface FittedGrepBlocks {
	/** The blocks shown (a file's lines are a prefix of what it had; files with nothing shown are left out). */
	blocks: GrepFileBlock[];
	/** True when lines had to be left out (beyond collapsing). */
	cut: boolean;
}

/** Lines and bytes of the joined blocks. */
export function sizeOfBlocks(blocks: readonly GrepFileBlock[], grouped: boolean): { lines: number; bytes: number } {
	let lines = 0;
	let bytes = 0;
	for (const [index, block] of blocks.entries()) {
		if (index > 0 && grouped) {
			lines++;
			bytes += 3;
		}
		for (const line of block.lines) {
			lines++;
			bytes += Buffer.byteLength(line.text) + 1;
		}
	}
	return { lines, bytes: Math.max(0, bytes - 1) };
}

function fits(blocks: readonly GrepFileBlock[], grouped: boolean, budget: GrepBudget): boolean {
	const size = sizeOfBlocks(blocks, grouped);
	return size.lines <= budget.maxLines && size.bytes <= budget.maxBytes;
}

/** The text after a grep line's `path:N: ` / `path-N- ` prefix, for telling near-identical lines apart. */
function lineBody(block: GrepFileBlock, line: GrepPrintedLine): string {
	const afterPath = line.text.slice(block.path.length + 1);
	return afterPath.slice(afterPath.indexOf(" ") + 1);
}

/** Collapses runs of four or more near-identical match lines (differing only in numbers) of one file. */
function collapseBlock(block: GrepFileBlock): GrepFileBlock {
	const { items } = collapseRuns(block.lines, {
		shapeOf: (line) => {
			if (line.matches !== 1) return undefined;
			const shape = wordyShapeOf(lineBody(block, line));
			return shape === undefined ? undefined : `m${shape}`;
		},
		marker: (hidden, run) => ({
			text: `[… ${hidden} near-identical ${hidden === 1 ? "match" : "matches"} of ${block.path} (differing only in numbers, lines ${run[1]?.lineNumber}–${run[run.length - 2]?.lineNumber}) collapsed]`,
			matches: hidden,
			collapsed: true,
			lineNumber: run[run.length - 2]?.lineNumber ?? 0,
		}),
	});
	return { ...block, lines: items };
}

/**
 * Fits a grep result to `budget` keeping what the model needs most: first it collapses runs of
 * near-identical matches within each file; then, if it still does not fit, every file (in path
 * order) gets its first match before any file gets a second, and what is left of the budget
 * goes to the files' next lines in path order. A file shows a prefix of its lines, so "the rest
 * of this file is after line N" holds.
 */
export function fitGrepBlocks(
	blocks: readonly GrepFileBlock[],
	grouped: boolean,
	budget: GrepBudget,
): FittedGrepBlocks {
	if (fits(blocks, grouped, budget)) return { blocks: [...blocks], cut: false };
	const collapsedBlocks = blocks.map(collapseBlock);
	if (fits(collapsedBlocks, grouped, budget)) return { blocks: collapsedBlocks, cut: false };

	let lines = 0;
	let bytes = 0;
	const take = (text: string, separated: boolean): boolean => {
		const addLines = 1 + (separated ? 1 : 0);
		const addBytes = Buffer.byteLength(text) + 1 + (separated ? 3 : 0);
		if (lines + addLines > budget.maxLines || bytes + addBytes > budget.maxBytes + 1) return false;
		lines += addLines;
		bytes += addBytes;
		return true;
	};
	// First pass: each file its lines up to its first match (the lead-in context and the match).
	const taken: number[] = [];
	for (const block of collapsedBlocks) {
		const firstMatch = block.lines.findIndex((line) => line.matches > 0);
		let count = 0;
		let complete = true;
		for (let index = 0; index <= firstMatch; index++) {
			if (!take((block.lines[index] as GrepPrintedLine).text, grouped && taken.length > 0 && index === 0)) {
				complete = false;
				break;
			}
			count++;
		}
		if (!complete) break;
		taken.push(count);
	}
	// Second pass: the rest of the budget to the files' next lines, in path order.
	for (const [blockIndex, block] of collapsedBlocks.slice(0, taken.length).entries()) {
		let count = taken[blockIndex] as number;
		while (count < block.lines.length && take((block.lines[count] as GrepPrintedLine).text, false)) count++;
		taken[blockIndex] = count;
		if (count < block.lines.length) break;
	}
	const fitted = collapsedBlocks.slice(0, taken.length).map((block, index) => {
		const shown = block.lines.slice(0, taken[index]);
		while (shown.length > 0 && shown[shown.length - 1]?.text === "--") shown.pop();
		return { ...block, lines: shown };
	});
	return { blocks: fitted, cut: true };
}
