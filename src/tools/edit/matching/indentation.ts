import { lineEndOf } from "../text.js";
import type { MatchContext } from "./match-context.js";
import { normalizeNeedle } from "./normalize.js";
import { WorkBudget } from "./work-budget.js";

/** A span of the original content to replace, with the text to put there. */
export interface Occurrence {
	/** Start offset in the original content. */
	start: number;
	/** End offset (exclusive) in the original content. */
	end: number;
	/** Replacement text, line endings not yet adapted to the file. */
	replacement: string;
}

const ALL = { lineEndings: true, trailingWhitespace: true, unicode: true } as const;

/** The leading blanks (spaces and tabs) of `line`. */
export function indentOf(line: string): string {
	return /^[ \t]*/.exec(line)?.[0] ?? "";
}

function greatestCommonDivisor(a: number, b: number): number {
	return b === 0 ? a : greatestCommonDivisor(b, a % b);
}

/** The indentation unit of some lines: a tab if they use tabs, else the gcd of their space widths. */
function unitOf(indents: readonly string[]): string {
	if (indents.some((indent) => indent.includes("\t"))) return "\t";
	const widths = indents.map((indent) => indent.length).filter((width) => width > 0);
	if (widths.length === 0) return "";
	return " ".repeat(widths.reduce(greatestCommonDivisor));
}

function levelOf(indent: string, unit: string): number {
	if (unit === "\t") return [...indent].reduce((level, character) => level + (character === "\t" ? 1 : 0.25), 0);
	return unit === "" ? 0 : indent.length / unit.length;
}

/**
 * Builds a function that re-indents a line of new_string from old_string's indentation to the
 * file's. When the file's indentation is old_string's with one prefix swapped for another (the
 * common case: the model dropped or added a level), that swap is applied; otherwise (tabs against
 * spaces) indentation levels are converted unit for unit.
 */
function reindenter(pairs: readonly { needle: string; file: string }[]): (indent: string) => string {
	const first = pairs[0];
	if (!first) return (indent) => indent;
	const swapsPrefix = pairs.every(
		(pair) => pair.needle.startsWith(first.needle) && pair.file === first.file + pair.needle.slice(first.needle.length),
	);
	if (swapsPrefix) {
		return (indent) => {
			if (indent.startsWith(first.needle)) return first.file + indent.slice(first.needle.length);
			const missing = first.needle.length - indent.length;
			return first.file.slice(0, Math.max(0, first.file.length - missing));
		};
	}
	const needleUnit = unitOf(pairs.map((pair) => pair.needle));
	const fileUnit = unitOf(pairs.map((pair) => pair.file)) || needleUnit;
	const shift = levelOf(first.file, fileUnit) - levelOf(first.needle, needleUnit);
	return (indent) => fileUnit.repeat(Math.max(0, Math.round(levelOf(indent, needleUnit) + shift)));
}

/**
 * `lines` of new_string moved from old_string's indentation (`needleLines`) to the file's
 * (`fileLines`, line for line). Left as they are when they already carry the file's indentation
 * rather than old_string's (the model indented new_string for the file): re-indenting them again
 * would indent twice.
 */
export function reindentLines(
	lines: readonly string[],
	needleLines: readonly string[],
	fileLines: readonly string[],
): string[] {
	const pairs = needleLines
		.map((line, index) => ({ needle: line, file: fileLines[index] ?? "" }))
		.filter((pair) => pair.needle.trim() !== "")
		.map((pair) => ({ needle: indentOf(pair.needle), file: indentOf(pair.file) }));
	// The first line of new_string that has a counterpart in old_string tells whose indentation it has.
	const sample = lines.findIndex((line, index) => line.trim() !== "" && (needleLines[index] ?? "").trim() !== "");
	if (sample !== -1) {
		const indent = indentOf(lines[sample] as string);
		const fileIndent = indentOf(fileLines[sample] ?? "");
		if (indent === fileIndent && indent !== indentOf(needleLines[sample] as string)) return [...lines];
	}
	const convert = reindenter(pairs);
	return lines.map((line) => {
		if (line.trim() === "") return line;
		const indent = indentOf(line);
		return convert(indent) + line.slice(indent.length);
	});
}

function reindent(replacement: string, needleLines: readonly string[], fileLines: readonly string[]): string {
	return reindentLines(replacement.split("\n"), needleLines, fileLines).join("\n");
}

/**
 * The indentation rung: whole lines that equal old_string's lines once leading and trailing
 * whitespace (and look-alikes) are ignored. Each match gets new_string re-indented to it.
 */
export function findByIndentation(context: MatchContext, needle: string, replacement: string): Occurrence[] {
	const normalizedNeedle = normalizeNeedle(needle, ALL);
	const finalNewline = normalizedNeedle.endsWith("\n");
	const needleLines = (finalNewline ? normalizedNeedle.slice(0, -1) : normalizedNeedle).split("\n");
	const needleKeys = needleLines.map((line) => line.trim());
	const anchor = needleKeys.findIndex((key) => key !== "");
	if (anchor === -1) return [];
	const keys = context.lineKeys();
	const starts = context.lineStarts();
	const text = context.content;
	const count = needleKeys.length;
	const occurrences: Occurrence[] = [];
	const anchorKey = needleKeys[anchor];
	const budget = new WorkBudget();
	for (let line = anchor; line + count - anchor <= keys.length; line++) {
		if (keys[line] !== anchorKey) continue;
		const first = line - anchor;
		let equal = 0;
		while (equal < count && keys[first + equal] === needleKeys[equal]) equal++;
		budget.spend(equal + 1);
		if (equal < count) continue;
		const start = starts[first] ?? 0;
		const lastStart = starts[first + count - 1] ?? 0;
		const afterLast = starts[first + count];
		const end = finalNewline ? (afterLast ?? text.length) : lineEndOf(text, lastStart);
		const fileLines = text.slice(start, end).split("\n");
		let adjusted = reindent(replacement, needleLines, fileLines);
		// The file's last line has no line break to replace; do not add one.
		if (finalNewline && afterLast === undefined && !text.endsWith("\n") && adjusted.endsWith("\n")) {
			adjusted = adjusted.slice(0, -1);
		}
		occurrences.push({ start, end, replacement: adjusted });
	}
	return occurrences;
}
