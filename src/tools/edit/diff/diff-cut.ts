import { type TruncationResult, truncateTail } from "../../../engine/index.js";

/** Longest run of removed or added lines kept when a diff is cut, at first; halved until the diff fits. */
const FIRST_RUN_CAP = 512;
const LAST_RUN_CAP = 4;

/** `-` for a removed line, `+` for an added one, a space for anything else (context, headers). */
function changeKind(line: string): "-" | "+" | " " {
	if (line.startsWith("-") && !line.startsWith("---")) return "-";
	if (line.startsWith("+") && !line.startsWith("+++")) return "+";
	return " ";
}

/** Runs of lines of one kind, in order. */
function runsOf(lines: readonly string[]): string[][] {
	const runs: string[][] = [];
	let kindOfLast = "";
	for (const line of lines) {
		const kind = changeKind(line);
		if (kind !== kindOfLast || runs.length === 0) runs.push([]);
		runs[runs.length - 1]?.push(line);
		kindOfLast = kind;
	}
	return runs;
}

function capRuns(runs: readonly string[][], cap: number): string {
	const out: string[] = [];
	for (const run of runs) {
		const kind = changeKind(run[0] ?? "");
		if (kind === " " || run.length <= cap + 1) {
			out.push(...run);
			continue;
		}
		out.push(...run.slice(0, cap), `[… ${run.length - cap} more ${kind === "-" ? "removed" : "added"} lines]`);
	}
	return out.join("\n");
}

/**
 * A unified diff cut to the output budget keeping both sides of every change in view: long runs
 * of removed and of added lines are shortened each (with a count of what was left out), so a
 * rewrite of many lines shows the start of what went and of what came, not removals alone.
 * Falls back to a cut of the tail when even that does not fit.
 */
export function cutDiff(diff: string): TruncationResult {
	const whole = truncateTail(diff);
	if (!whole.truncated) return whole;
	const runs = runsOf(diff.split("\n"));
	for (let cap = FIRST_RUN_CAP; cap >= LAST_RUN_CAP; cap >>= 1) {
		const shortened = truncateTail(capRuns(runs, cap));
		if (!shortened.truncated)
			return {
				...whole,
				content: shortened.content,
				outputLines: shortened.outputLines,
				outputBytes: shortened.outputBytes,
			};
	}
	return whole;
}

/**
 * Lines of a whole diff: those of its text, less the line saying how many were not made, plus
 * those (see `EditDiff.notShownLines`).
 */
export function diffLineCount(textLines: number, notShownLines: number): number {
	return notShownLines > 0 ? textLines - 1 + notShownLines : textLines;
}
