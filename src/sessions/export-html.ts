import type { Message } from "../agent/index.js";
import { EXPORT_STYLE } from "./export-style.js";
import type { ToolCallRecord } from "./records.js";
import type { RecordedSession } from "./session-reader.js";

/** Lines of a command's output shown before the rest is folded away. */
const PREVIEW_LINES = 8;
/** Most characters of one block the page shows (the session file keeps everything). */
const MOST_CHARACTERS = 200_000;

function escapeHtml(text: string): string {
	return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

function bounded(text: string): string {
	return text.length > MOST_CHARACTERS
		? `${text.slice(0, MOST_CHARACTERS)}\n… ${text.length - MOST_CHARACTERS} more characters in the session file`
		: text;
}

/** A unified diff (or a patch) with added, removed and hunk lines coloured. */
function diffHtml(diff: string): string {
	const lines = bounded(diff)
		.split("\n")
		.map((line) => {
			const kind = line.startsWith("@@")
				? "hunk"
				: line.startsWith("+") && !line.startsWith("+++")
					? "add"
					: line.startsWith("-") && !line.startsWith("---")
						? "del"
						: "";
			return `<span${kind ? ` class="${kind}"` : ""}>${escapeHtml(line) || " "}</span>`;
		});
	return `<pre class="diff">${lines.join("")}</pre>`;
}

/** Output folded to its first lines, the rest behind a click. */
function previewHtml(text: string): string {
	const lines = bounded(text).split("\n");
	if (lines.length <= PREVIEW_LINES) return `<pre>${escapeHtml(lines.join("\n"))}</pre>`;
	const head = lines.slice(0, PREVIEW_LINES).join("\n");
	return `<pre>${escapeHtml(head)}</pre><details><summary>${lines.length - PREVIEW_LINES} more lines</summary><pre>${escapeHtml(lines.slice(PREVIEW_LINES).join("\n"))}</pre></details>`;
}

function messageText(message: Message): string {
	if (typeof message.content === "string") return message.content;
	return message.content
		.map((block) => (block.type === "text" ? block.text : block.type === "thinking" ? "" : ""))
		.join("");
}

function changeOf(call: ToolCallRecord): string | undefined {
	const details = call.result.details as { diff?: unknown } | undefined;
	if (typeof details?.diff === "string" && details.diff !== "") return details.diff;
	const args = (call.ranWith ?? call.arguments) as Record<string, unknown> | undefined;
	if (typeof args?.patch === "string") return args.patch;
	if (call.toolName === "write" && typeof args?.content === "string" && !call.result.isError)
		return args.content
			.split("\n")
			.map((line) => `+${line}`)
			.join("\n");
	return undefined;
}

function callHtml(call: ToolCallRecord): string {
	const state = call.decision.blocked ? "blocked" : call.result.isError ? "error" : "";
	const tag = state ? `<span class="tag ${state}">${state === "blocked" ? "blocked by a hook" : "error"}</span>` : "";
	const args = call.arguments as Record<string, unknown> | undefined;
	const headline = typeof args?.command === "string" ? args.command : typeof args?.path === "string" ? args.path : "";
	const resultText = call.result.content
		.map((block) => (block.type === "text" ? block.text : `[image ${block.mimeType}]`))
		.join("\n");
	const change = call.result.isError ? undefined : changeOf(call);
	const files = call.files
		.map((file) => {
			const before = file.before.exists ? `${file.before.size} B ${file.before.sha256?.slice(0, 12) ?? ""}` : "absent";
			const after = file.after
				? file.after.exists
					? ` → ${file.after.size} B ${file.after.sha256?.slice(0, 12) ?? ""}`
					: " → absent"
				: "";
			return `${escapeHtml(file.path)}: ${escapeHtml(before)}${escapeHtml(after)}`;
		})
		.join("<br>");
	return `<div class="call ${state}">
<div class="call-head"><b>${escapeHtml(call.toolName)}</b> ${escapeHtml(headline)}${tag}<span class="time">${call.durationMs} ms</span></div>
<details><summary>arguments</summary><pre>${escapeHtml(bounded(JSON.stringify(call.arguments, null, 2)))}</pre></details>
${change ? diffHtml(change) : ""}${change && !call.result.isError ? `<details><summary>result</summary>${previewHtml(resultText)}</details>` : previewHtml(resultText)}
${files ? `<div class="files">${files}</div>` : ""}</div>`;
}

/**
 * One self-contained HTML page of a recorded session: the conversation, each tool call with its
 * arguments, coloured diffs of file changes, command output folded to a preview, errors and
 * blocks marked, timings. Inline style, no script, no external resource: it opens offline.
 */
export function renderSessionHtml(session: RecordedSession): string {
	const { header } = session;
	const parts: string[] = [];
	let batch: ToolCallRecord[] = [];
	const flush = () => {
		for (const call of batch.sort((left, right) => left.batch - right.batch || left.index - right.index))
			parts.push(callHtml(call));
		batch = [];
	};
	let calls = 0;
	for (const record of session.records) {
		if (record.type === "tool_call") {
			batch.push(record);
			calls++;
			continue;
		}
		flush();
		if (record.type === "resumed") parts.push(`<p class="meta">— resumed ${new Date(record.at).toISOString()} —</p>`);
		if (record.type === "cut") parts.push(`<p class="meta">— ${escapeHtml(record.reason)} —</p>`);
		if (record.type !== "message" || record.message.role === "toolResult") continue;
		const text = messageText(record.message);
		if (text.trim() === "") continue;
		const role = record.message.role;
		parts.push(
			`<div class="message ${role}"><div class="role">${role}</div><div class="text">${escapeHtml(bounded(text))}</div></div>`,
		);
	}
	flush();
	const title = `toolbelt session ${header.id}`;
	const model = header.model ? ` · ${escapeHtml(`${header.model.provider} ${header.model.id}`)}` : "";
	return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style>${EXPORT_STYLE}</style></head>
<body><h1>${escapeHtml(title)}</h1>
<div class="meta">${escapeHtml(header.cwd)} · ${new Date(header.startedAt).toISOString()} · ${escapeHtml(header.source)}${model} · ${calls} tool calls</div>
${parts.join("\n")}
</body></html>
`;
}
