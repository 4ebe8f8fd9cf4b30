import type { Message } from "../agent/index.js";
import type { ToolResultContent } from "../engine/index.js";

/** The version of the JSONL format a session file is written in. */
export const SESSION_FORMAT_VERSION = 1;

/** Where a session came from. */
export type SessionSource = "run" | "interactive" | "mcp" | "library";

/** The first line of a session file. */
export interface SessionHeaderRecord {
	type: "session";
	/** Format version (`SESSION_FORMAT_VERSION`). */
	version: number;
	/** The session's id, also its file name without `.jsonl`. */
	id: string;
	/** Milliseconds since the epoch when it started. */
	startedAt: number;
	/** The workspace the calls acted on: a local folder, or a remote workspace's URL. */
	cwd: string;
	/** What recorded it. */
	source: SessionSource;
	/** The provider and model, for agent sessions. */
	model?: { provider: string; id: string };
	/** The MCP client's name and version, for an MCP session. */
	client?: string;
}

/** A message of the conversation, once final (a prompt, a reply, a tool result). */
export interface MessageRecord {
	type: "message";
	/** Milliseconds since the epoch when it was recorded. */
	at: number;
	message: Message;
}

/** Size and SHA-256 of a file at one moment; `exists: false` when there was none. */
export type FileFingerprint =
	| { exists: true; size: number; sha256?: string; kind?: "file" | "directory" | "other"; note?: string }
	| { exists: false };

/** A file one call acted on, as it was before the call and (for a call that changes files) after it. */
export interface FileRecord {
	/** The absolute path as the workspace resolved it. */
	path: string;
	/** `read` or `write`, as the call's target declared it. */
	access: "read" | "write";
	before: FileFingerprint;
	/** Present for a call that may change the file. */
	after?: FileFingerprint;
}

/** What the hooks decided about a call. */
export interface HookDecisionRecord {
	/** True when a hook refused the call: it never ran. */
	blocked: boolean;
	/** The hook's reason, when it blocked. */
	reason?: string;
	/** True when a hook rewrote the arguments (`arguments` then holds the ones the tool ran with). */
	rewritten?: boolean;
	/** True when an after-hook replaced part of the result. */
	patched?: boolean;
}

/** One tool call: its arguments, the hooks' decisions, the result, the timing, the files. */
export interface ToolCallRecord {
	type: "tool_call";
	/** Milliseconds since the epoch when the call ended. */
	at: number;
	/** The calls of one batch (one assistant message, or one MCP request) share a number, from 1. */
	batch: number;
	/** Position of the call within its batch, from 0 (source order). */
	index: number;
	toolCallId: string;
	toolName: string;
	/** The arguments as the model sent them. */
	arguments: unknown;
	/** The arguments the tool ran with, when a hook or repair changed them. */
	ranWith?: unknown;
	/** Milliseconds since the epoch when the call started. */
	startedAt: number;
	/** Wall-clock duration, in ms. */
	durationMs: number;
	decision: HookDecisionRecord;
	/** The final result, as the model saw it. Image data is left out (kept: its type, size and hash). */
	result: { content: RecordedContent[]; details?: unknown; isError: boolean };
	/** The files the call read or changed. */
	files: FileRecord[];
}

/** A result block as recorded: text whole, an image by its size and hash. */
export type RecordedContent =
	| Extract<ToolResultContent, { type: "text" }>
	| { type: "image"; mimeType: string; bytes: number; sha256: string };

/** The session was continued (`--continue`, `--resume`, `/resume`) from here on. */
export interface ResumedRecord {
	type: "resumed";
	at: number;
}

/** Written once when the file reached its size limit: later records were dropped. */
export interface CutRecord {
	type: "cut";
	at: number;
	/** Why nothing more is recorded. */
	reason: string;
}

/** Any line of a session file. */
export type SessionRecord = SessionHeaderRecord | MessageRecord | ToolCallRecord | ResumedRecord | CutRecord;
