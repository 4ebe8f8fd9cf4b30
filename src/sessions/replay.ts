import {
	type AnyAgentTool,
	executeToolCalls,
	type ToolCall,
	type ToolHooks,
	type ToolResultMessage,
} from "../engine/index.js";
import type { Workspace } from "../workspace/index.js";
import { fingerprintFile } from "./fingerprint.js";
import type { FileFingerprint, ToolCallRecord } from "./records.js";
import { createRedactor, type Redactor } from "./redact.js";
import { normalizeForReplay } from "./replay-normalize.js";
import { type RecordedSession, toolCallsOf } from "./session-reader.js";

/** Where a replay first differed from the record. */
export interface ReplayDivergence {
	/** The recorded call, by its batch and position. */
	batch: number;
	index: number;
	toolCallId: string;
	toolName: string;
	/** `file`: a file the call reads or changes differed before it ran; `result`: the result differed. */
	kind: "file" | "result";
	/** The file, for `file`. */
	path?: string;
	/** What the record holds and what the replay found (fingerprints, or normalized result texts). */
	recorded: unknown;
	replayed: unknown;
	/** One sentence saying what differs, for a person or a model. */
	message: string;
}

/** What `replaySession` found. */
export interface ReplayReport {
	/** Calls in the record. */
	calls: number;
	/** Calls run again (blocked ones are not run: they never ran). */
	replayed: number;
	/** Batches run. */
	batches: number;
	/** The first divergence, or undefined when the replay matched the record. */
	divergence?: ReplayDivergence;
}

/** Options of `replaySession`. */
export interface ReplayOptions {
	/** The recorded session. */
	session: RecordedSession;
	/** The tools, built from the workspace to replay against. */
	tools: readonly AnyAgentTool[];
	/** The workspace to replay against: recorded paths below the recorded folder map into its `cwd`. */
	workspace: Workspace;
	/** Guards around the calls (the CLI's safety layer). Default: none. */
	hooks?: ToolHooks;
	/** Stops the replay (running calls get the signal). */
	signal?: AbortSignal;
	/** Go on after the first divergence instead of stopping after its batch. Default: false. */
	keepGoing?: boolean;
	/**
	 * Redacts the replayed results as the record's were, so a key a command prints matches the
	 * record's `[redacted]`. Default: `createRedactor(process.env)`.
	 */
	redact?: Redactor;
	/** Called after each batch (progress). Default: none. */
	onBatch?: (batch: number, results: readonly ToolResultMessage[]) => void;
}

function sameFingerprint(recorded: FileFingerprint, replayed: FileFingerprint): boolean {
	if (!recorded.exists || !replayed.exists) return recorded.exists === replayed.exists;
	if (recorded.sha256 === undefined || replayed.sha256 === undefined) return recorded.size === replayed.size;
	return recorded.sha256 === replayed.sha256 && recorded.size === replayed.size;
}

function describeFingerprint(fingerprint: FileFingerprint): string {
	if (!fingerprint.exists) return "absent";
	return `${fingerprint.size} bytes${fingerprint.sha256 ? `, sha256 ${fingerprint.sha256.slice(0, 12)}…` : ""}`;
}

function resultText(content: readonly { type: string; text?: string; mimeType?: string }[]): string {
	return content
		.map((block) => (block.type === "text" ? (block.text ?? "") : `[image ${block.mimeType ?? ""}]`))
		.join("\n");
}

/** The state one replay carries through its batches. */
interface ReplayState {
	options: ReplayOptions;
	byId: Map<string, ToolCallRecord>;
	recordedCwd: string;
	redact: Redactor;
	divergence?: ReplayDivergence;
}

/** A recorded absolute path as it lies in the replay's workspace. */
function mappedPath(state: ReplayState, path: string): string {
	const { recordedCwd } = state;
	const cwd = state.options.workspace.cwd;
	if (path === recordedCwd) return cwd;
	return path.startsWith(`${recordedCwd}/`) ? `${cwd}${path.slice(recordedCwd.length)}` : path;
}

/** Keeps the earliest divergence by place in the record (calls of a batch finish in any order). */
function diverge(state: ReplayState, divergence: ReplayDivergence): void {
	const known = state.divergence;
	const earlier =
		!known ||
		divergence.batch < known.batch ||
		(divergence.batch === known.batch && divergence.index < known.index) ||
		(divergence.batch === known.batch &&
			divergence.index === known.index &&
			divergence.kind === "file" &&
			known.kind !== "file");
	if (earlier) state.divergence = divergence;
}

/** Before each call: the files it acts on must be as the record found them. */
function checkingHooks(state: ReplayState): ToolHooks {
	const inner = state.options.hooks ?? {};
	return {
		beforeToolCall: async (context, signal) => {
			const decision = await inner.beforeToolCall?.(context, signal);
			const record = state.byId.get(context.toolCall.id);
			if (!record || decision?.block) return decision;
			const files = state.options.workspace.files;
			for (const file of record.files) {
				const path = mappedPath(state, file.path);
				const now = await fingerprintFile(files, path);
				if (sameFingerprint(file.before, now)) continue;
				diverge(state, {
					batch: record.batch,
					index: record.index,
					toolCallId: record.toolCallId,
					toolName: record.toolName,
					kind: "file",
					path,
					recorded: file.before,
					replayed: now,
					message: `Before call ${record.index + 1} of batch ${record.batch} (${record.toolName}), ${path} was ${describeFingerprint(file.before)} in the record and is ${describeFingerprint(now)} now.`,
				});
			}
			return decision;
		},
		afterToolCall: inner.afterToolCall,
	};
}

function compareResult(state: ReplayState, record: ToolCallRecord, message: ToolResultMessage): void {
	const workspaces = [state.recordedCwd, state.options.workspace.cwd];
	const recorded = normalizeForReplay(resultText(record.result.content), workspaces);
	const replayed = normalizeForReplay(state.redact(resultText(message.content)), workspaces);
	if (recorded === replayed && record.result.isError === message.isError) return;
	diverge(state, {
		batch: record.batch,
		index: record.index,
		toolCallId: record.toolCallId,
		toolName: record.toolName,
		kind: "result",
		recorded: { isError: record.result.isError, text: recorded },
		replayed: { isError: message.isError, text: replayed },
		message:
			record.result.isError !== message.isError
				? `Call ${record.index + 1} of batch ${record.batch} (${record.toolName}) ${record.result.isError ? "failed" : "succeeded"} in the record and ${message.isError ? "failed" : "succeeded"} now.`
				: `Call ${record.index + 1} of batch ${record.batch} (${record.toolName}) returned a different result (times, pids and temp names ignored).`,
	});
}

/**
 * Runs the recorded tool calls of a session again, batch by batch in the recorded order (each
 * batch through `executeToolCalls`, so parallel calls run together and sequential ones as
 * barriers, as they did), against `workspace`, and reports the first divergence: a file whose
 * fingerprint before a call differs from the record, or a result that differs once what is known
 * to vary is ignored (`normalizeForReplay`). Calls the record shows blocked are not run. No model
 * is involved.
 */
export async function replaySession(options: ReplayOptions): Promise<ReplayReport> {
	const calls = toolCallsOf(options.session);
	const state: ReplayState = {
		options,
		byId: new Map(),
		recordedCwd: options.session.header.cwd,
		redact: options.redact ?? createRedactor(process.env),
	};
	const batches = new Map<number, ToolCallRecord[]>();
	for (const call of calls) batches.set(call.batch, [...(batches.get(call.batch) ?? []), call]);
	const hooks = checkingHooks(state);
	let replayed = 0;
	let ran = 0;
	for (const batch of [...batches.keys()].sort((left, right) => left - right)) {
		if (options.signal?.aborted || (state.divergence && !options.keepGoing)) break;
		const records = (batches.get(batch) ?? [])
			.filter((record) => !record.decision.blocked)
			.sort((left, right) => left.index - right.index);
		if (records.length === 0) continue;
		state.byId = new Map(records.map((record) => [record.toolCallId, record]));
		const toolCalls: ToolCall[] = records.map((record) => ({
			type: "toolCall",
			id: record.toolCallId,
			name: record.toolName,
			arguments: (record.arguments ?? {}) as Record<string, unknown>,
		}));
		const { messages } = await executeToolCalls({ tools: options.tools, toolCalls, signal: options.signal, ...hooks });
		ran++;
		replayed += records.length;
		for (const [index, record] of records.entries()) {
			const message = messages[index];
			if (message) compareResult(state, record, message);
		}
		options.onBatch?.(batch, messages);
	}
	return { calls: calls.length, replayed, batches: ran, ...(state.divergence ? { divergence: state.divergence } : {}) };
}
