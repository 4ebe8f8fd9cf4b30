import type {
	AssistantContent,
	AssistantMessage,
	AssistantMessageEvent,
	Model,
	ModelContext,
	StopReason,
	StreamFn,
	StreamOptions,
	Usage,
} from "../agent/index.js";
import { createAssistantMessage, parsePartialJson } from "../agent/index.js";

/** A model descriptor for tests (`provider: "fake"`); pass it wherever a `Model` is expected. */
export const fakeModel: Model = { provider: "fake", id: "fake-model" };

/** A scripted tool call. */
export interface ScriptedToolCall {
	/** The call's id. Default: `call_<reply>_<index>`. */
	id?: string;
	/** The tool to call. */
	name: string;
	/** Arguments object, or a raw JSON string (possibly malformed) streamed as is. */
	arguments: Record<string, unknown> | string;
}

/** One scripted reply. Blocks stream in the order thinking, text, tool calls. */
export interface ScriptedReply {
	/** Thinking text, streamed first. Default: none. */
	thinking?: string;
	/** Reply text. Default: none. */
	text?: string;
	/** Tool calls, streamed after the text. Default: none. */
	toolCalls?: ScriptedToolCall[];
	/** Default: `toolUse` when there are tool calls, else `stop`. */
	stopReason?: StopReason;
	/** The error message of `error` / `aborted` replies. Default: `Fake model error.` */
	errorMessage?: string;
	/** Default: zero counts. */
	usage?: Partial<Usage>;
	/** Stream the blocks, then wait until the request's signal aborts and end with `aborted`. Default: false. */
	hangUntilAborted?: boolean;
	/** Throw this from the stream after the blocks (to test providers that break the contract). Default: none. */
	throwError?: Error;
}

/** A reply, or a function computing one from the request (called when the request arrives). */
export type Scripted =
	| ScriptedReply
	| ((request: RecordedRequest, index: number) => ScriptedReply | Promise<ScriptedReply>);

/** What the fake model was sent (deep copies, safe from later mutation). */
export interface RecordedRequest {
	/** The model asked. */
	model: Model;
	/** The system prompt, messages and tools sent (tools as name, description, parameters). */
	context: ModelContext;
	/** The stream options, without the signal. */
	options: Omit<StreamOptions, "signal">;
	/** Whether a signal was passed and aborted at request time. */
	abortedAtStart: boolean;
}

/** Options of `createFakeModel`. */
export interface FakeModelStreamOptions {
	/** Delay before each streamed event, in ms (lets tests act mid-stream). Default: 0. */
	eventDelayMs?: number;
	/** Size of the text and argument chunks, in characters. Default: 8. */
	chunkSize?: number;
	/** When the script runs out: `error` replies with an error message; `repeatLast` reuses the last. Default: `error`. */
	whenExhausted?: "error" | "repeatLast";
}

/** The fake model: a `StreamFn` and what it recorded. */
export interface FakeModelStream {
	/** Pass as `streamFn` wherever a provider is expected. */
	streamFn: StreamFn;
	/** Every request, in order. */
	requests: RecordedRequest[];
	/** Appends more scripted replies. */
	push(...replies: Scripted[]): void;
}

/** Text reply. */
export function textReply(text: string, extra: Partial<ScriptedReply> = {}): ScriptedReply {
	return { text, ...extra };
}

/** Reply with tool calls (and optional text before them). */
export function toolCallReply(toolCalls: ScriptedToolCall[], text?: string): ScriptedReply {
	return { toolCalls, text };
}

/** Reply that failed with `errorMessage`. */
export function errorReply(errorMessage: string): ScriptedReply {
	return { stopReason: "error", errorMessage };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function chunks(text: string, size: number): string[] {
	const parts: string[] = [];
	for (let index = 0; index < text.length; index += size) parts.push(text.slice(index, index + size));
	return parts.length > 0 ? parts : [""];
}

/**
 * A fake model for testing agents built on toolbelt without a provider: it replays scripted
 * replies as a real `StreamFn` streams them (start, block start/delta/end, done/error), honours
 * the abort signal, and records each request. Pass `streamFn` to `Agent` / `agentLoop`.
 *
 * @example
 * const model = createFakeModel([toolCallReply([{ name: "read", arguments: { path: "README.md" } }]), textReply("Done.")]);
 * const agent = new Agent({ model: fakeModel, streamFn: model.streamFn, tools: createCodingTools(cwd) });
 */
export function createFakeModel(replies: Scripted[] = [], options: FakeModelStreamOptions = {}): FakeModelStream {
	const state: FakeModelState = {
		script: [...replies],
		requests: [],
		chunkSize: options.chunkSize ?? 8,
		eventDelayMs: options.eventDelayMs ?? 0,
		repeatLast: options.whenExhausted === "repeatLast",
		lastReply: undefined,
	};
	return {
		streamFn: (model, context, streamOptions) => streamReply(state, model, context, streamOptions),
		requests: state.requests,
		push: (...more) => {
			state.script.push(...more);
		},
	};
}

/** What a fake model holds between requests. */
interface FakeModelState {
	script: Scripted[];
	requests: RecordedRequest[];
	chunkSize: number;
	eventDelayMs: number;
	repeatLast: boolean;
	lastReply: Scripted | undefined;
}

/** One reply being streamed: the message it builds, and what paces and stops it. */
interface ReplyStream {
	message: AssistantMessage;
	signal: AbortSignal | undefined;
	chunkSize: number;
	eventDelayMs: number;
}

/** Answers one request: records it, takes the next scripted reply and streams it event by event. */
async function* streamReply(
	state: FakeModelState,
	model: Model,
	context: ModelContext,
	streamOptions: StreamOptions = {},
): AsyncGenerator<AssistantMessageEvent> {
	const { signal, ...rest } = streamOptions;
	const request: RecordedRequest = {
		model: structuredClone(model),
		context: structuredClone({
			...context,
			tools: context.tools?.map(({ name, description, parameters }) => ({ name, description, parameters })),
		}),
		options: structuredClone(rest),
		abortedAtStart: signal?.aborted === true,
	};
	const index = state.requests.length;
	state.requests.push(request);
	const stream: ReplyStream = {
		message: createAssistantMessage(model),
		signal,
		chunkSize: state.chunkSize,
		eventDelayMs: state.eventDelayMs,
	};
	const { message } = stream;
	if (signal?.aborted) return yield abortedEvent(message);
	let scripted = state.script.shift();
	if (!scripted && state.repeatLast) scripted = state.lastReply;
	if (!scripted) {
		const errorMessage = `Fake model: no scripted reply for request ${index + 1}.`;
		return yield { type: "error", message: { ...message, stopReason: "error", errorMessage } };
	}
	state.lastReply = scripted;
	const reply = typeof scripted === "function" ? await scripted(request, index) : scripted;
	if (await pause(stream)) return yield abortedEvent(message);
	yield { type: "start", partial: message };
	for (const block of replyBlocks(reply, index)) {
		const aborted =
			block.type === "toolCall" ? yield* streamToolCall(stream, block) : yield* streamTextBlock(stream, block);
		if (aborted) return yield abortedEvent(message);
	}
	if (reply.throwError) throw reply.throwError;
	if (reply.hangUntilAborted) {
		await new Promise<void>((resolve) => {
			if (!signal || signal.aborted) return resolve();
			signal.addEventListener("abort", () => resolve(), { once: true });
		});
		return yield abortedEvent(message);
	}
	yield finalEvent(message, reply);
}

/** The `error` event of an aborted request, with the content streamed so far. */
function abortedEvent(message: AssistantMessage): AssistantMessageEvent {
	return {
		type: "error",
		message: {
			...message,
			content: [...message.content],
			stopReason: "aborted",
			errorMessage: "The request was aborted.",
		},
	};
}

/** Waits the event delay; true when the request was aborted meanwhile. */
async function pause(stream: ReplyStream): Promise<boolean> {
	if (stream.eventDelayMs > 0) await sleep(stream.eventDelayMs);
	return stream.signal?.aborted === true;
}

/** The reply's blocks in streaming order: thinking, text, tool calls (ids filled in). */
function replyBlocks(reply: ScriptedReply, index: number): AssistantContent[] {
	const blocks: AssistantContent[] = [];
	if (reply.thinking !== undefined) blocks.push({ type: "thinking", thinking: reply.thinking });
	if (reply.text !== undefined) blocks.push({ type: "text", text: reply.text });
	for (const [callIndex, call] of (reply.toolCalls ?? []).entries()) {
		blocks.push({
			type: "toolCall",
			id: call.id ?? `call_${index + 1}_${callIndex + 1}`,
			name: call.name,
			arguments:
				typeof call.arguments === "string" ? (call.arguments as unknown as Record<string, unknown>) : call.arguments,
		});
	}
	return blocks;
}

/** Streams one tool call's arguments in chunks, parsed as far as they go; returns true when aborted. */
async function* streamToolCall(
	stream: ReplyStream,
	block: Extract<AssistantContent, { type: "toolCall" }>,
): AsyncGenerator<AssistantMessageEvent, boolean> {
	const { message } = stream;
	const contentIndex = message.content.length;
	const raw = typeof block.arguments === "string" ? (block.arguments as string) : JSON.stringify(block.arguments);
	const live = { ...block, arguments: {} as Record<string, unknown> };
	message.content.push(live);
	yield { type: "toolcall_start", contentIndex, delta: "", partial: message };
	let sofar = "";
	for (const part of chunks(raw, stream.chunkSize)) {
		if (await pause(stream)) return true;
		sofar += part;
		live.arguments = parsePartialJson(sofar);
		yield { type: "toolcall_delta", contentIndex, delta: part, partial: message };
	}
	// A malformed argument string is passed on as a string, as a provider would.
	live.arguments = typeof block.arguments === "string" ? parseArgumentsOrRaw(raw) : block.arguments;
	yield { type: "toolcall_end", contentIndex, delta: "", partial: message };
	return false;
}

/** Streams one text or thinking block in chunks; returns true when aborted. */
async function* streamTextBlock(
	stream: ReplyStream,
	block: Extract<AssistantContent, { type: "text" | "thinking" }>,
): AsyncGenerator<AssistantMessageEvent, boolean> {
	const { message } = stream;
	const contentIndex = message.content.length;
	const kind = block.type;
	const live = kind === "text" ? { type: "text" as const, text: "" } : { type: "thinking" as const, thinking: "" };
	message.content.push(live);
	yield { type: `${kind}_start`, contentIndex, delta: "", partial: message };
	const full = block.type === "text" ? block.text : block.thinking;
	for (const part of chunks(full, stream.chunkSize)) {
		if (await pause(stream)) return true;
		if (live.type === "text") live.text += part;
		else live.thinking += part;
		yield { type: `${kind}_delta`, contentIndex, delta: part, partial: message };
	}
	yield { type: `${kind}_end`, contentIndex, delta: "", partial: message };
	return false;
}

/** The closing `done` (or `error`) event, with usage and stop reason. */
function finalEvent(message: AssistantMessage, reply: ScriptedReply): AssistantMessageEvent {
	const counts = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, ...reply.usage };
	const usage: Usage = {
		...counts,
		totalTokens:
			reply.usage?.totalTokens ??
			counts.inputTokens + counts.outputTokens + counts.cacheReadTokens + counts.cacheWriteTokens,
	};
	const stopReason = reply.stopReason ?? ((reply.toolCalls?.length ?? 0) > 0 ? "toolUse" : "stop");
	const final: AssistantMessage = { ...message, content: [...message.content], usage, stopReason };
	if (stopReason === "error" || stopReason === "aborted") {
		return { type: "error", message: { ...final, errorMessage: reply.errorMessage ?? "Fake model error." } };
	}
	return { type: "done", message: final };
}

function parseArgumentsOrRaw(raw: string): Record<string, unknown> {
	try {
		const value: unknown = JSON.parse(raw);
		if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
	} catch {
		// Fall through: the engine reports the malformed arguments to the model.
	}
	return raw as unknown as Record<string, unknown>;
}
