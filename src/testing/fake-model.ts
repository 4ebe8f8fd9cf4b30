import { createAssistantMessage } from "../agent/messages.js";
import { parsePartialJson } from "../agent/providers/partial-json.js";
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
} from "../agent/types.js";

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
	const script = [...replies];
	const requests: RecordedRequest[] = [];
	const chunkSize = options.chunkSize ?? 8;
	const eventDelayMs = options.eventDelayMs ?? 0;
	let lastReply: Scripted | undefined;

	async function* stream(
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
		const index = requests.length;
		requests.push(request);
		const message = createAssistantMessage(model);
		const aborted = (): AssistantMessageEvent => ({
			type: "error",
			message: {
				...message,
				content: [...message.content],
				stopReason: "aborted",
				errorMessage: "The request was aborted.",
			},
		});
		if (signal?.aborted) {
			yield aborted();
			return;
		}
		let scripted = script.shift();
		if (!scripted && options.whenExhausted === "repeatLast") scripted = lastReply;
		if (!scripted) {
			yield {
				type: "error",
				message: {
					...message,
					stopReason: "error",
					errorMessage: `Fake model: no scripted reply for request ${index + 1}.`,
				},
			};
			return;
		}
		lastReply = scripted;
		const reply = typeof scripted === "function" ? await scripted(request, index) : scripted;
		const pause = async () => {
			if (eventDelayMs > 0) await sleep(eventDelayMs);
			return signal?.aborted === true;
		};
		if (await pause()) return yield aborted();
		yield { type: "start", partial: message };

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
		for (const block of blocks) {
			const contentIndex = message.content.length;
			if (block.type === "toolCall") {
				const raw = typeof block.arguments === "string" ? (block.arguments as string) : JSON.stringify(block.arguments);
				const live = { ...block, arguments: {} as Record<string, unknown> };
				message.content.push(live);
				yield { type: "toolcall_start", contentIndex, delta: "", partial: message };
				let sofar = "";
				for (const part of chunks(raw, chunkSize)) {
					if (await pause()) return yield aborted();
					sofar += part;
					live.arguments = parsePartialJson(sofar);
					yield { type: "toolcall_delta", contentIndex, delta: part, partial: message };
				}
				// A malformed argument string is passed on as a string, as a provider would.
				live.arguments = typeof block.arguments === "string" ? parseArgumentsOrRaw(raw) : block.arguments;
				yield { type: "toolcall_end", contentIndex, delta: "", partial: message };
				continue;
			}
			const kind = block.type;
			const live = kind === "text" ? { type: "text" as const, text: "" } : { type: "thinking" as const, thinking: "" };
			message.content.push(live);
			yield { type: `${kind}_start`, contentIndex, delta: "", partial: message };
			const full = block.type === "text" ? block.text : block.thinking;
			for (const part of chunks(full, chunkSize)) {
				if (await pause()) return yield aborted();
				if (live.type === "text") live.text += part;
				else live.thinking += part;
				yield { type: `${kind}_delta`, contentIndex, delta: part, partial: message };
			}
			yield { type: `${kind}_end`, contentIndex, delta: "", partial: message };
		}
		if (reply.throwError) throw reply.throwError;
		if (reply.hangUntilAborted) {
			await new Promise<void>((resolve) => {
				if (!signal || signal.aborted) return resolve();
				signal.addEventListener("abort", () => resolve(), { once: true });
			});
			return yield aborted();
		}
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
			yield { type: "error", message: { ...final, errorMessage: reply.errorMessage ?? "Fake model error." } };
		} else {
			yield { type: "done", message: final };
		}
	}

	return {
		streamFn: stream,
		requests,
		push: (...more) => {
			script.push(...more);
		},
	};
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
