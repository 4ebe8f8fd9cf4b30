import type { ToolResult } from "../../engine/index.js";
import { contentToText } from "./content.js";
import { linesOf, type ShownDiffLine, shownLine, unifiedDiffLines } from "./shown-lines.js";

/** Most output lines of a finished command shown under its line: its last ones. */
export const PREVIEW_OUTPUT_LINES = 3;

/** Most diff lines of a finished edit or write shown under its line; the rest are counted. */
export const PREVIEW_DIFF_LINES = 6;

/** What a finished call shows under its line: output lines (dim) or diff lines, and how many were left out. */
export interface ResultPreview {
	/** `output`: plain lines of a command's output; `diff`: the change made. */
	kind: "output" | "diff";
	lines: ShownDiffLine[];
	/** Lines not shown. */
	more: number;
}

// The notices a shell result ends with (exit code, truncation, background jobs): the call's line says these.
const shellNotice = /^(?:\[[\s\S]*\]|Command (?:exited with code|timed out|was killed)[\s\S]*|\(no output\))$/;

/** The output a shell call printed, without the notices after it. */
function shellOutput(text: string): string {
	const paragraphs = text.split("\n\n");
	while (paragraphs.length > 0 && shellNotice.test(paragraphs[paragraphs.length - 1]?.trim() ?? "")) paragraphs.pop();
	return paragraphs.join("\n\n");
}

function bounded(kind: ResultPreview["kind"], lines: ShownDiffLine[], max: number, fromEnd: boolean): ResultPreview {
	const shown = fromEnd ? lines.slice(-max) : lines.slice(0, max);
	return { kind, lines: shown, more: lines.length - shown.length };
}

/**
 * A short preview of a finished call for the terminal: a command's last output lines, an
 * edit's or patch's changed lines, a new file's first lines. Control characters are dropped and
 * lines bounded (`shownLine`). Undefined for other tools, failed calls and empty output.
 */
export function resultPreview(
	toolName: string,
	args: unknown,
	result: ToolResult,
	isError: boolean,
): ResultPreview | undefined {
	const details = (typeof result.details === "object" && result.details !== null ? result.details : {}) as Record<
		string,
		unknown
	>;
	const fields = (typeof args === "object" && args !== null ? args : {}) as Record<string, unknown>;
	let preview: ResultPreview | undefined;
	// A shell call that ran has an exit code; one blocked before running has only the refusal's text.
	if ((toolName === "bash" || toolName === "powershell") && "exitCode" in details) {
		const lines = linesOf(shellOutput(contentToText(result.content)))
			.filter((line) => line.trim() !== "")
			.map((line) => ({ kind: "context" as const, text: shownLine(line) }));
		preview = bounded("output", lines, PREVIEW_OUTPUT_LINES, true);
	} else if (isError) return undefined;
	else if (typeof details.diff === "string") {
		preview = bounded("diff", unifiedDiffLines(details.diff), PREVIEW_DIFF_LINES, false);
	} else if (toolName === "write" && details.created === true) {
		const lines = linesOf(fields.content).map((line) => ({ kind: "add" as const, text: shownLine(line) }));
		preview = bounded("diff", lines, PREVIEW_DIFF_LINES, false);
	}
	return preview && preview.lines.length > 0 ? preview : undefined;
}
