// Sessions: every agent run, interactive session and MCP client session recorded as one JSONL
// file in the user's private state folder, read back to list, resume, export and replay.

export { renderSessionHtml } from "./export-html.js";
export { DEFAULT_HASH_LIMIT_BYTES, fingerprintFile } from "./fingerprint.js";
export { type OpenSessionRecorderOptions, openSessionRecorder } from "./open-recorder.js";
export { imageNotKept } from "./recorded-content.js";
export { createSessionRecorder, type SessionRecorder, type SessionRecorderOptions } from "./recorder.js";
export type {
	CutRecord,
	FileFingerprint,
	FileRecord,
	HookDecisionRecord,
	MessageRecord,
	RecordedContent,
	ResumedRecord,
	SessionHeaderRecord,
	SessionRecord,
	SessionSource,
	ToolCallRecord,
} from "./records.js";
export { SESSION_FORMAT_VERSION } from "./records.js";
export { createRedactor, REDACTED, type Redactor, redactedJson } from "./redact.js";
export { type ReplayDivergence, type ReplayOptions, type ReplayReport, replaySession } from "./replay.js";
export { normalizeForReplay } from "./replay-normalize.js";
export {
	messagesOf,
	type RecordedSession,
	readSessionFile,
	type SessionSummary,
	summarize,
	toolCallsOf,
} from "./session-reader.js";
export {
	DEFAULT_SESSION_FILE_MAX_BYTES,
	DEFAULT_SESSIONS_MAX_AGE_MS,
	DEFAULT_SESSIONS_MAX_BYTES,
	isSessionId,
	newSessionId,
	type SessionFile,
	SessionStore,
	type SessionStoreOptions,
	SessionStoreRefusedError,
	sessionsDirOf,
} from "./session-store.js";
