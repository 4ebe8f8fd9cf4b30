import type { ToolResult } from "../../engine/index.js";

function oneLine(text: string): string {
	// Control characters from a model's arguments must not drive the terminal.
	return text
		.replace(/\s+/g, " ")
		.replace(/[\u0000-\u001f\u007f-\u009f]/g, "")
		.trim();
}

function field(args: Record<string, unknown>, name: string): string | undefined {
	const value = args[name];
	return typeof value === "string" || typeof value === "number" ? String(value) : undefined;
}

/**
 * The gist of a tool call's arguments on one line, as a person would type it:
 * `npm test` for bash, `src/a.ts:120` for read, `"TODO" in src` for grep.
 */
export function summarizeToolArguments(toolName: string, rawArgs: unknown): string {
	const args = typeof rawArgs === "object" && rawArgs !== null ? (rawArgs as Record<string, unknown>) : {};
	switch (toolName) {
		case "bash":
		case "powershell":
			return oneLine(field(args, "command") ?? "");
		case "read": {
			const offset = field(args, "offset");
			return `${field(args, "path") ?? ""}${offset ? `:${offset}` : ""}`;
		}
		case "write":
			return field(args, "path") ?? "";
		case "edit": {
			const edits = Array.isArray(args.edits) ? args.edits.length : 0;
			return `${field(args, "path") ?? ""}${edits > 1 ? ` (${edits} edits)` : ""}`;
		}
		case "grep": {
			const path = field(args, "path");
			const include = field(args, "include");
			return oneLine(
				`${JSON.stringify(field(args, "pattern") ?? "")}${path ? ` in ${path}` : ""}${include ? ` (${include})` : ""}`,
			);
		}
		case "find": {
			const path = field(args, "path");
			return `${field(args, "pattern") ?? ""}${path ? ` in ${path}` : ""}`;
		}
		case "ls":
			return field(args, "path") ?? ".";
		default: {
			const json = JSON.stringify(args);
			return json === "{}" ? "" : oneLine(json);
		}
	}
}

/**
 * Why a call failed, in a few words: `exit 1` for a shell command that exited non-zero,
 * `timed out`, `cancelled`, else the first line of the error text.
 */
export function failureLabel(result: ToolResult): string {
	const details = (typeof result.details === "object" && result.details !== null ? result.details : {}) as Record<
		string,
		unknown
	>;
	if (details.timedOut === true) return "timed out";
	if (details.cancelled === true) return "cancelled";
	if (typeof details.exitCode === "number" && details.exitCode !== 0) return `exit ${details.exitCode}`;
	const text = result.content.find((block) => block.type === "text")?.text ?? "";
	if (/was cancelled|was aborted/.test(text)) return "cancelled";
	// The safety layer's refusals (src/safety): their full text is for the model, a word is enough here.
	if (text.startsWith("Permission required:")) return "needs approval";
	if (text.startsWith("Permission denied:")) return "denied by a rule or mode";
	if (text.startsWith("The user declined")) return "declined";
	if (text.startsWith("Access denied:") && text.includes("outside the workspace")) return "outside the workspace";
	const exit = /exit(?:ed with)? code (\d+)/i.exec(text);
	if (exit) return `exit ${exit[1]}`;
	const lines = text
		.trim()
		.split("\n")
		.map((line) => line.trim())
		.filter((line) => line !== "");
	const firstLine = lines[0] ?? "";
	// "Validation failed for tool "read":" says nothing alone; the reason is on the next line.
	if (firstLine.endsWith(":") && lines[1]) return `${firstLine} ${lines[1]}`;
	return firstLine === "" ? "failed" : firstLine;
}

function columnsOf(character: string): number {
	const code = character.codePointAt(0) ?? 0;
	if (code >= 0x300 && code <= 0x36f) return 0;
	const wide =
		(code >= 0x1100 && code <= 0x115f) ||
		(code >= 0x2e80 && code <= 0xa4cf) ||
		(code >= 0xac00 && code <= 0xd7a3) ||
		(code >= 0xf900 && code <= 0xfaff) ||
		(code >= 0xfe30 && code <= 0xfe4f) ||
		(code >= 0xff00 && code <= 0xff60) ||
		(code >= 0xffe0 && code <= 0xffe6) ||
		code >= 0x1f300;
	return wide ? 2 : 1;
}

/**
 * Cuts `text` to at most `width` terminal columns (wide CJK and emoji count two), marking the
 * cut with `…`. A line that stays within the width can be redrawn in place.
 */
export function fitWidth(text: string, width: number): string {
	let used = 0;
	let result = "";
	const characters = Array.from(text);
	for (const [index, character] of characters.entries()) {
		const columns = columnsOf(character);
		const reserve = index < characters.length - 1 ? 1 : 0;
		if (used + columns + reserve > width) return `${result}…`;
		used += columns;
		result += character;
	}
	return result;
}
