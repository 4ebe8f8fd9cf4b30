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

/** One line of a diff as shown: its kind and its text (control characters already dropped). */
export interface ShownDiffLine {
	/** Removed, added, unchanged context, or `gap`: unchanged lines left out between two changes. */
	kind: "remove" | "add" | "context" | "gap";
	text: string;
}

function diffLine(line: string): ShownDiffLine | undefined {
	if (line.startsWith("---") || line.startsWith("+++") || line.startsWith("\\")) return undefined;
	if (line.startsWith("@@")) return { kind: "gap", text: "" };
	const kind = line.startsWith("-") ? "remove" : line.startsWith("+") ? "add" : "context";
	return { kind, text: shownLine(line.slice(1)) };
}

/**
 * A diff line coloured for the terminal: `- ` red, `+ ` green, context indented, a gap as a dim
 * `⋯`. `fitRow` cuts the text to the terminal's width first (so a redrawn block keeps its rows).
 */
export function styleDiffLine(
	line: ShownDiffLine,
	style: Style,
	fitRow: (text: string) => string = (text) => text,
): string {
	if (line.kind === "gap") return style.dim("⋯");
	if (line.kind === "remove") return style.red(fitRow(`- ${line.text}`));
	if (line.kind === "add") return style.green(fitRow(`+ ${line.text}`));
	return fitRow(`  ${line.text}`);
}

/**
 * The lines of a unified diff (an edit's `details.diff`) as shown to a person: file headers
 * dropped, the first hunk's header dropped and later ones as gaps.
 */
export function unifiedDiffLines(diff: string): ShownDiffLine[] {
	const lines = linesOf(diff)
		.map(diffLine)
		.filter((line): line is ShownDiffLine => line !== undefined);
	return lines[0]?.kind === "gap" ? lines.slice(1) : lines;
}

/**
 * The change from `before` to `after`, line by line with one line of context. Undefined when the
 * texts are too different to diff quickly (the caller then shows the new text alone); empty when
 * they are equal.
 */
export function textDiffLines(before: string, after: string): ShownDiffLine[] | undefined {
	// Bounded work: a file rewritten from scratch is shown as its new lines instead.
	const patch = structuredPatch("", "", before, after, undefined, undefined, {
		context: 1,
		maxEditLength: 2_000,
		timeout: 500,
	});
	if (!patch) return undefined;
	return patch.hunks.flatMap((hunk, index) => [
		...(index > 0 ? [{ kind: "gap" as const, text: "" }] : []),
		...hunk.lines.map(diffLine).filter((line): line is ShownDiffLine => line !== undefined),
	]);
}
