import { closeSync, constants, createReadStream, fstatSync, openSync } from "node:fs";
import { createInterface } from "node:readline";
import type { Message } from "../agent/index.js";
import { formatSize } from "../engine/index.js";
import type { MessageRecord, SessionHeaderRecord, SessionRecord, ToolCallRecord } from "./records.js";
import { DEFAULT_SESSION_FILE_MAX_BYTES } from "./session-store.js";

/** A session file read back: its header and every record after it, in order. */
export interface RecordedSession {
	header: SessionHeaderRecord;
	records: SessionRecord[];
}

/**
 * Most bytes of a session file read back: twice what the recorder writes by default (its limit and
 * a resumed session's appends). A larger file was not written by the recorder, and its records
 * would all be held in memory.
 */
export const MAX_SESSION_FILE_READ_BYTES = 2 * DEFAULT_SESSION_FILE_MAX_BYTES;

/** Options of `readSessionFile`. */
export interface ReadSessionFileOptions {
	/** Most bytes read; a larger file is refused. Default: `MAX_SESSION_FILE_READ_BYTES` (64 MB). */
	maxBytes?: number;
}

/**
 * Opens a session file to read: the regular file at `path` itself, never through a link in its
 * place (the recorder makes none), never a FIFO, device or socket (non-blocking open: a FIFO
 * without a writer would wait forever), at most `maxBytes`. Throws a sentence saying which.
 */
function openSessionFile(path: string, maxBytes: number): { descriptor: number; size: number } {
	let descriptor: number;
	try {
		descriptor = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ELOOP")
			throw new Error(`${path} is a symbolic link, not a recorded session (the recorder writes files only).`);
		throw error;
	}
	const info = fstatSync(descriptor);
	let problem: string | undefined;
	if (!info.isFile())
		problem = `${path} is not a regular file (a FIFO, device or socket); it is not a recorded session.`;
	else if (info.size > maxBytes)
		problem = `${path} is ${formatSize(info.size)}, more than a recorded session can be (${formatSize(maxBytes)}); it is not read.`;
	if (problem !== undefined) {
		closeSync(descriptor);
		throw new Error(problem);
	}
	return { descriptor, size: info.size };
}

/**
 * Reads a session file line by line; a line that is not a record (cut by a crash) is skipped.
 * Bounded: see `openSessionFile`; a file still growing is read up to its bound.
 */
export async function readSessionFile(path: string, options: ReadSessionFileOptions = {}): Promise<RecordedSession> {
	const maxBytes = options.maxBytes ?? MAX_SESSION_FILE_READ_BYTES;
	const { descriptor } = openSessionFile(path, maxBytes);
	const lines = createInterface({
		input: createReadStream("", { fd: descriptor, encoding: "utf8", start: 0, end: maxBytes - 1 }),
		crlfDelay: Number.POSITIVE_INFINITY,
	});
	let header: SessionHeaderRecord | undefined;
	const records: SessionRecord[] = [];
	for await (const line of lines) {
		if (line.trim() === "") continue;
		let record: SessionRecord;
		try {
			record = JSON.parse(line) as SessionRecord;
		} catch {
			continue;
		}
		if (typeof record !== "object" || record === null || typeof record.type !== "string") continue;
		if (record.type === "session" && header === undefined) header = record;
		else records.push(record);
	}
	if (!header) throw new Error(`${path} is not a recorded session (it has no session line).`);
	return { header, records };
}

/** The messages of a recorded conversation, in order: what a resumed session starts from. */
export function messagesOf(session: RecordedSession): Message[] {
	return session.records
		.filter((record): record is MessageRecord => record.type === "message")
		.map((record) => record.message);
}

/** The tool calls of a recorded session, in the order they were recorded. */
export function toolCallsOf(session: RecordedSession): ToolCallRecord[] {
	return session.records.filter((record): record is ToolCallRecord => record.type === "tool_call");
}

/** What `toolbelt sessions` shows of one session. */
export interface SessionSummary {
	id: string;
	cwd: string;
	startedAt: number;
	source: SessionHeaderRecord["source"];
	/** The first prompt, on one line (or the first tool called, for an MCP session). */
	firstPrompt: string;
	/** Prompts of the person (agent sessions) or batches of calls (MCP sessions). */
	turns: number;
	toolCalls: number;
	/** Tokens billed, summed over the replies (providers price them; toolbelt does not know the prices). */
	tokens: { input: number; output: number };
	model?: string;
}

function textOf(message: Message): string {
	if (typeof message.content === "string") return message.content;
	return message.content
		.map((block) => (block.type === "text" ? block.text : ""))
		.join(" ")
		.trim();
}

/** Sums up a session for the list. */
export function summarize(session: RecordedSession): SessionSummary {
	const { header } = session;
	const summary: SessionSummary = {
		id: header.id,
		cwd: header.cwd,
		startedAt: header.startedAt,
		source: header.source,
		firstPrompt: "",
		turns: 0,
		toolCalls: 0,
		tokens: { input: 0, output: 0 },
		...(header.model ? { model: `${header.model.provider} ${header.model.id}` } : {}),
	};
	const batches = new Set<number>();
	for (const record of session.records) {
		if (record.type === "tool_call") {
			summary.toolCalls++;
			batches.add(record.batch);
			if (summary.firstPrompt === "" && header.source === "mcp") summary.firstPrompt = `(MCP) ${record.toolName}`;
		}
		if (record.type !== "message") continue;
		const { message } = record;
		if (message.role === "user") {
			summary.turns++;
			if (summary.firstPrompt === "" || summary.firstPrompt.startsWith("(MCP)"))
				summary.firstPrompt = textOf(message).replace(/\s+/g, " ");
		} else if (message.role === "assistant") {
			summary.tokens.input +=
				message.usage.inputTokens + message.usage.cacheReadTokens + message.usage.cacheWriteTokens;
			summary.tokens.output += message.usage.outputTokens;
		}
	}
	if (header.source === "mcp") summary.turns = batches.size;
	return summary;
}
