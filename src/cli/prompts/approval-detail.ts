import type { PermissionRequest } from "../../safety/index.js";
import { boundedLines, linesOf, shownLine, styleDiffLine, textDiffLines } from "../render/shown-lines.js";
import type { Style } from "../render/style.js";

/** Most lines of a diff or command shown under an approval question; the rest are counted. */
export const APPROVAL_DETAIL_LINES = 12;

/** The changes an edit call asks for, as removed and added lines (one hunk per edit). */
function editLines(args: Record<string, unknown>, style: Style): string[] {
	const edits = Array.isArray(args.edits) ? (args.edits as Record<string, unknown>[]) : [args];
	return edits.flatMap((edit, index) => [
		...(index > 0 ? [style.dim("  ⋯")] : []),
		...linesOf(edit.old_string).map((line) => style.red(`- ${shownLine(line)}`)),
		...linesOf(edit.new_string).map((line) => style.green(`+ ${shownLine(line)}`)),
	]);
}

/** A write: the diff against the file it replaces when that is known and small, else the new lines. */
function writeLines(args: Record<string, unknown>, replaced: string | undefined, style: Style): string[] {
	const content = typeof args.content === "string" ? args.content : "";
	const diff = replaced === undefined ? undefined : textDiffLines(replaced, content);
	if (diff && diff.length === 0) return [style.dim("(no change: the file already holds this content)")];
	return (
		diff?.map((line) => styleDiffLine(line, style)) ??
		linesOf(content).map((line) => style.green(`+ ${shownLine(line)}`))
	);
}

/**
 * What the person should see before approving a call, beyond its one-line summary: the full
 * command of a bash call, the removed and added lines of an edit, the content a write puts in
 * place or, when it replaces a file whose text is given as `replaced`, the diff against it;
 * coloured, at most `APPROVAL_DETAIL_LINES` lines and then how many more there are.
 * Empty for other tools.
 */
export function approvalDetail(request: PermissionRequest, style: Style, replaced?: string): string {
	const { toolName, args } = request;
	let lines: string[];
	if (toolName === "bash" || toolName === "powershell") {
		const command = linesOf(args.command);
		// A one-line command is whole in the summary already.
		if (command.length <= 1) return "";
		lines = command.map((line) => style.bold(`$ ${shownLine(line)}`));
	} else if (toolName === "edit") lines = editLines(args, style);
	else if (toolName === "write") lines = writeLines(args, replaced, style);
	else return "";
	if (lines.length === 0) return "";
	return `${boundedLines(lines, APPROVAL_DETAIL_LINES, style, "    ").join("\n")}\n`;
}
