import { structuredPatch } from "diff";
import type { Style } from "./style.js";

/** Most characters of one shown line: a minified file must not flood the terminal. */
const MAX_LINE_CHARS = 200;

/**
 * One line of a model's argument or a tool's output as it may be shown: control characters
 * dropped (they could drive the terminal), tabs as two spaces, cut at 200 characters.
 */
export function shownLine(line: string): string {
	const text = line.replace(/[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/g, "").replace(/\t/g, "  ");
	return text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)}…` : text;
}

/** The lines of a text (any line ending), without the empty one after a final line break. */
export function linesOf(text: unknown): string[] {
	if (typeof text !== "string" || text === "") return [];
	return text.replace(/\r\n?/g, "\n").replace(/\n$/, "").split("\n");
}

/**
 * The first `max` lines, then `… K more lines` (dim) for the rest, each indented by `indent`.
 * Empty when there are no lines.
 */
export function boundedLines(lines: readonly string[], max: number, style: Style, indent: string): string[] {
	const shown = lines.slice(0, max).map((line) => `${indent}${line}`);
	const more = lines.length - shown.length;
	if (more > 0) shown.push(style.dim(`${indent}… ${more} more line${more === 1 ? "" : "s"}`));
	return shown;
}

/** A unified diff line, coloured: `-` red, `+` green, a hunk header as a dim `⋯`, context plain. */
function diffLine(line: string, style: Style): string | undefined {
	if (line.startsWith("---") || line.startsWith("+++") || line.startsWith("\\")) return undefined;
	if (line.startsWith("@@")) return style.dim("⋯");
	if (line.startsWith("-")) return style.red(`- ${shownLine(line.slice(1))}`);
	if (line.startsWith("+")) return style.green(`+ ${shownLine(line.slice(1))}`);
	return `  ${shownLine(line.slice(1))}`;
}

/**
 * The lines of a unified diff (an edit's `details.diff`) as shown to a person: file headers
 * dropped, the first hunk's header dropped and later ones as `⋯`, changes coloured.
 */
export function unifiedDiffLines(diff: string, style: Style): string[] {
	const lines = linesOf(diff)
		.map((line) => diffLine(line, style))
		.filter((line): line is string => line !== undefined);
	return lines[0] === style.dim("⋯") ? lines.slice(1) : lines;
}

/**
 * The change from `before` to `after`, line by line with one line of context, as
 * `unifiedDiffLines` shows it. Undefined when the texts are too different to diff quickly (the
 * caller then shows the new text alone); empty when they are equal.
 */
export function textDiffLines(before: string, after: string, style: Style): string[] | undefined {
	// Bounded work: a file rewritten from scratch is shown as its new lines instead.
	const patch = structuredPatch("", "", before, after, undefined, undefined, {
		context: 1,
		maxEditLength: 2_000,
		timeout: 500,
	});
	if (!patch) return undefined;
	const lines = patch.hunks.flatMap((hunk, index) => [
		...(index > 0 ? [style.dim("⋯")] : []),
		...hunk.lines.map((line) => diffLine(line, style)).filter((line): line is string => line !== undefined),
	]);
	return lines;
}
