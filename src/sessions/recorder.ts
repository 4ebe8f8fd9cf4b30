import type { AgentEvent, Message } from "../agent/index.js";
import type { ToolExecutionEvent, ToolHooks, ToolTarget } from "../engine/index.js";
import type { FileOperations } from "../workspace/index.js";
import { DEFAULT_HASH_LIMIT_BYTES, filesOfTarget, fingerprintFile, type TargetFile } from "./fingerprint.js";
import { recordedContent, recordedMessage } from "./recorded-content.js";
import {
	type FileRecord,
	type HookDecisionRecord,
	SESSION_FORMAT_VERSION,
	type SessionHeaderRecord,
	type SessionRecord,
	type SessionSource,
	type ToolCallRecord,
} from "./records.js";
import { createRedactor, type Redactor, redactedJson } from "./redact.js";
import { type RecordedSession, toolCallsOf } from "./session-reader.js";
import type { SessionFile, SessionStore } from "./session-store.js";

/** Options of `createSessionRecorder`. */
export interface SessionRecorderOptions {
	/** Where the session file goes. */
	store: SessionStore;
	/** What is being recorded. */
	source: SessionSource;
	/** The workspace the calls act on (a folder, or a remote workspace's URL). */
	cwd: string;
	/** The provider and model of an agent session. Default: none. */
	model?: { provider: string; id: string };
	/** The MCP client's name, for an MCP session. Default: none. */
	client?: string;
	/** The environment whose secret variables' values are redacted. Default: `process.env`. */
	env?: Record<string, string | undefined>;
	/** Continue this recorded session (append to its file) instead of starting a new one. Default: a new one. */
	resume?: RecordedSession;
	/** Files larger than this are fingerprinted by size alone. Default: 32 MiB. */
	hashLimitBytes?: number;
	/** Told once when recording stops because the file cannot be written. Default: none. */
	onWarning?: (message: string) => void;
}

/** A call between its start and its end: what the hooks and the events learned of it. */
interface PendingCall {
	/** Set when the start event is seen. */
	place?: { batch: number; index: number };
	arguments: unknown;
	ranWith?: unknown;
	startedAt: number;
	decision: HookDecisionRecord;
	files: FileRecord[];
	/** The files to fingerprint again after the call (those it may change), with their operations. */
	changing: { record: FileRecord; files: FileOperations }[];
}

/**
 * Records one session as JSONL: every final message, and each tool call with its arguments, the
 * hooks' decisions, its result, its timing and the fingerprints of the files it read or changed.
 * Secrets are redacted while each line is serialized. Attach it at the engine level: wrap the
 * tool hooks with `wrapHooks` (so it sees what the guards decided) and feed it the engine's tool
 * events (`onToolEvent`) and, for an agent, the agent's events (`onAgentEvent`, which also feeds
 * the tool events). Contract: never throws into the run; a file that cannot be written stops the
 * recording with one warning.
 */
export interface SessionRecorder {
	/** The session's id. */
	readonly id: string;
	/** The session file. */
	readonly path: string;
	/** Hooks around `inner` that record its decisions and fingerprint the files of each allowed call. */
	wrapHooks(inner: ToolHooks): ToolHooks;
	/** Feeds an engine event (start and end of each call). */
	onToolEvent(event: ToolExecutionEvent): void;
	/** Feeds an agent event: final messages, batch boundaries, and the tool events within. */
	onAgentEvent(event: AgentEvent): void;
	/** Stops recording and closes the file. Idempotent. */
	close(): void;
}

function toolCallIdsOf(message: Message): string[] {
	if (message.role !== "assistant") return [];
	return message.content.flatMap((block) => (block.type === "toolCall" ? [block.id] : []));
}

/** The state of one recorder, shared by its phases. */
interface RecorderState {
	file: SessionFile | undefined;
	redact: Redactor;
	hashLimitBytes: number;
	batch: number;
	/** Where the calls of announced batches (an assistant message's) sit: id → batch and index. */
	announced: Map<string, { batch: number; index: number }>;
	pending: Map<string, PendingCall>;
	onWarning?: (message: string) => void;
}

/** Levels of a record searched for the part JSON cannot write (arguments sit two levels down). */
const MARK_LEVELS = 3;

/**
 * `value` as JSON, a part that cannot be written (arguments nested 100,000 levels deep overflow
 * JSON.stringify's stack) replaced by a string that says so, down to `levels` levels; past them the
 * whole value is. A model or an MCP client choosing its arguments cannot stop the recording so.
 */
function recordJson(value: unknown, redact: Redactor, levels = MARK_LEVELS): string {
	try {
		// JSON.stringify gives undefined for undefined and functions: null, as it writes them in an array.
		return redactedJson(value, redact) ?? "null";
	} catch (error) {
		const marker = JSON.stringify(`[not recorded: ${error instanceof Error ? error.message : String(error)}]`);
		if (levels === 0 || typeof value !== "object" || value === null) return marker;
		const inner = (item: unknown) => recordJson(item, redact, levels - 1);
		if (Array.isArray(value)) return `[${value.map(inner).join(",")}]`;
		const written = Object.entries(value).filter(([, item]) => item !== undefined && typeof item !== "function");
		const parts = written.map(([key, item]) => `${JSON.stringify(key)}:${inner(item)}`);
		return `{${parts.join(",")}}`;
	}
}

function write(state: RecorderState, record: SessionRecord): void {
	if (!state.file) return;
	try {
		state.file.append(recordJson(record, state.redact));
	} catch (error) {
		const path = state.file.path;
		state.file = undefined;
		state.onWarning?.(
			`recording of the session stopped: ${path} could not be written (${error instanceof Error ? error.message : String(error)}).`,
		);
	}
}

async function fingerprintAll(state: RecorderState, target: ToolTarget | undefined, call: PendingCall): Promise<void> {
	const found: TargetFile[] = filesOfTarget(target);
	await Promise.all(
		found.map(async (file) => {
			if (!file.workspace) return;
			const operations = file.workspace.files;
			const record: FileRecord = {
				path: file.path,
				access: file.access,
				before: await fingerprintFile(operations, file.path, state.hashLimitBytes),
			};
			call.files.push(record);
			if (file.access === "write") call.changing.push({ record, files: operations });
		}),
	);
}

/**
 * The entry of a call, made by whichever sees it first: the start event, or the hooks (an agent's
 * events reach listeners through a stream, so its hooks may run before the start is seen).
 */
function pendingCall(state: RecorderState, toolCallId: string): PendingCall {
	let call = state.pending.get(toolCallId);
	if (!call) {
		call = { arguments: undefined, startedAt: Date.now(), decision: { blocked: false }, files: [], changing: [] };
		state.pending.set(toolCallId, call);
	}
	return call;
}

function startCall(state: RecorderState, event: Extract<ToolExecutionEvent, { type: "tool_execution_start" }>): void {
	// A call no assistant message announced (an MCP request, a library batch): a batch of its own.
	const place = state.announced.get(event.toolCallId) ?? { batch: ++state.batch, index: 0 };
	state.announced.delete(event.toolCallId);
	const call = pendingCall(state, event.toolCallId);
	call.place = place;
	call.arguments = event.args;
}

function endCall(state: RecorderState, event: Extract<ToolExecutionEvent, { type: "tool_execution_end" }>): void {
	const call = state.pending.get(event.toolCallId);
	if (!call?.place) return;
	state.pending.delete(event.toolCallId);
	const record: ToolCallRecord = {
		type: "tool_call",
		at: Date.now(),
		batch: call.place.batch,
		index: call.place.index,
		toolCallId: event.toolCallId,
		toolName: event.toolName,
		arguments: call.arguments,
		...(call.ranWith !== undefined ? { ranWith: call.ranWith } : {}),
		startedAt: call.startedAt,
		durationMs: event.durationMs,
		decision: call.decision,
		result: {
			content: event.result.content.map(recordedContent),
			...(event.result.details !== undefined ? { details: event.result.details } : {}),
			isError: event.isError,
		},
		files: call.files,
	};
	write(state, record);
}

/** Creates the recorder of one session (a new file, or the resumed session's file). */
export function createSessionRecorder(options: SessionRecorderOptions): SessionRecorder {
	const file = options.resume ? options.store.reopen(options.resume.header.id) : options.store.create();
	const state: RecorderState = {
		file,
		redact: createRedactor(options.env ?? process.env),
		hashLimitBytes: options.hashLimitBytes ?? DEFAULT_HASH_LIMIT_BYTES,
		batch: 0,
		announced: new Map(),
		pending: new Map(),
		...(options.onWarning ? { onWarning: options.onWarning } : {}),
	};
	if (options.resume) {
		// Batch numbers continue after the recorded ones: a resumed file stays one sequence.
		state.batch = Math.max(0, ...toolCallsOf(options.resume).map((call) => call.batch));
		write(state, { type: "resumed", at: Date.now() });
	} else {
		const header: SessionHeaderRecord = {
			type: "session",
			version: SESSION_FORMAT_VERSION,
			id: file.id,
			startedAt: Date.now(),
			cwd: options.cwd,
			source: options.source,
			...(options.model ? { model: options.model } : {}),
			...(options.client ? { client: options.client } : {}),
		};
		write(state, header);
	}
	const recorder: SessionRecorder = {
		id: file.id,
		path: file.path,
		wrapHooks: (inner) => wrapHooks(state, inner),
		onToolEvent(event) {
			if (event.type === "tool_execution_start") startCall(state, event);
			else if (event.type === "tool_execution_end") endCall(state, event);
		},
		onAgentEvent(event) {
			if (event.type === "message_end") {
				write(state, { type: "message", at: Date.now(), message: recordedMessage(event.message) });
				const ids = toolCallIdsOf(event.message);
				if (ids.length > 0) {
					const batch = ++state.batch;
					for (const [index, id] of ids.entries()) state.announced.set(id, { batch, index });
				}
			} else if (event.type.startsWith("tool_execution_")) recorder.onToolEvent(event as ToolExecutionEvent);
		},
		close() {
			state.file?.close();
			state.file = undefined;
		},
	};
	return recorder;
}

function wrapHooks(state: RecorderState, inner: ToolHooks): ToolHooks {
	return {
		beforeToolCall: async (context, signal) => {
			const decision = await inner.beforeToolCall?.(context, signal);
			const call = pendingCall(state, context.toolCall.id);
			if (decision?.block) {
				call.decision = { blocked: true, ...(decision.reason ? { reason: decision.reason } : {}) };
				return decision;
			}
			if (decision?.args) {
				call.decision = { blocked: false, rewritten: true };
				call.ranWith = decision.args;
			}
			await fingerprintAll(state, decision?.target ?? context.target, call);
			return decision;
		},
		afterToolCall: async (context, signal) => {
			const patch = await inner.afterToolCall?.(context, signal);
			const call = pendingCall(state, context.toolCall.id);
			if (patch && Object.keys(patch).length > 0) call.decision = { ...call.decision, patched: true };
			await Promise.all(
				call.changing.map(async ({ record, files }) => {
					record.after = await fingerprintFile(files, record.path, state.hashLimitBytes);
				}),
			);
			return patch;
		},
	};
}
