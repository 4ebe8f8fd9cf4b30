import type { PermissionRequest } from "../../safety/index.js";
import type { Style } from "../render/style.js";

/** Most lines of a diff or command shown under an approval question; the rest are counted. */
export const APPROVAL_DETAIL_LINES = 12;

/** Most characters of one shown line: a minified file must not flood the terminal. */
const MAX_LINE_CHARS = 200;

function clean(line: string): string {
	// Arguments come from a model: no control characters may reach the terminal.
	const text = line.replace(/[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/g, "").replace(/\t/g, "  ");
	return text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)}…` : text;
}

function linesOf(text: unknown): string[] {
	if (typeof text !== "string" || text === "") return [];
	return text.replace(/\r\n?/g, "\n").replace(/\n$/, "").split("\n");
}

/** The changes an edit call asks for, as removed and added lines (one hunk per edit). */
function editLines(args: Record<string, unknown>, style: Style): string[] {
	const edits = Array.isArray(args.edits) ? (args.edits as Record<string, unknown>[]) : [args];
	return edits.flatMap((edit, index) => [
		...(index > 0 ? [style.dim("  ⋯")] : []),
		...linesOf(edit.old_string).map((line) => style.red(`- ${clean(line)}`)),
		...linesOf(edit.new_string).map((line) => style.green(`+ ${clean(line)}`)),
	]);
}

/**
 * What the person should see before approving a call, beyond its one-line summary: the full
 * command of a bash call, the removed and added lines of an edit, the content a write puts in
 * place; coloured, at most `APPROVAL_DETAIL_LINES` lines and then how many more there are.
 * Empty for other tools.
 */
export function approvalDetail(request: PermissionRequest, style: Style): string {
	const { toolName, args } = request;
	let lines: string[];
	if (toolName === "bash" || toolName === "powershell") {
		const command = linesOf(args.command);
		// A one-line command is whole in the summary already.
		if (command.length <= 1) return "";
		lines = command.map((line) => style.bold(`$ ${clean(line)}`));
	} else if (toolName === "edit") lines = editLines(args, style);
	else if (toolName === "write") lines = linesOf(args.content).map((line) => style.green(`+ ${clean(line)}`));
	else return "";
	if (lines.length === 0) return "";
	const shown = lines.slice(0, APPROVAL_DETAIL_LINES).map((line) => `    ${line}`);
	const more = lines.length - shown.length;
	if (more > 0) shown.push(style.dim(`    … ${more} more line${more === 1 ? "" : "s"}`));
	return `${shown.join("\n")}\n`;
}
