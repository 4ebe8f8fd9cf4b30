import OpenAI from "openai";
import type {
	ChatCompletionChunk,
	ChatCompletionContentPart,
	ChatCompletionCreateParamsStreaming,
	ChatCompletionMessageParam,
	ChatCompletionMessageToolCall,
} from "openai/resources/chat/completions";
import type { ImageContent, TextContent } from "../../engine/index.js";
import { toolCallsOf } from "../messages.js";
import type { AssistantMessageEvent, Message, Model, ModelContext, StreamOptions } from "../types.js";
import { defaultBaseUrl } from "./config.js";
import type { ProviderOptions } from "./provider-options.js";
import { type ProviderAdapter, streamFromProvider } from "./provider-stream.js";
import type { ReplyBuilder } from "./reply-builder.js";
import { ThinkTagSplitter } from "./think-tags.js";
import { toOpenAITools } from "./tool-schemas.js";
import { normalizeTranscript } from "./transcript.js";

/** Options of `streamOpenAICompletions`: per-request options plus provider options. */
export type OpenAICompletionsOptions = StreamOptions & ProviderOptions;

const LABEL = "OpenAI-compatible API";

function imageUrl(image: ImageContent): ChatCompletionContentPart {
	return { type: "image_url", image_url: { url: `data:${image.mimeType};base64,${image.data}` } };
}

function textOf(blocks: readonly (TextContent | ImageContent)[]): string {
	return blocks
		.filter((block): block is TextContent => block.type === "text")
		.map((block) => block.text)
		.join("\n");
}

/**
 * Converts the transcript to Chat Completions messages. Tool messages carry text only, so
 * images from tool results follow in one user message after the batch's tool messages.
 */
export function toOpenAIMessages(context: ModelContext): ChatCompletionMessageParam[] {
	const output: ChatCompletionMessageParam[] = [];
	if (context.systemPrompt) output.push({ role: "system", content: context.systemPrompt });
	let pendingImages: ChatCompletionContentPart[] = [];
	const flushImages = () => {
		if (pendingImages.length === 0) return;
		output.push({
			role: "user",
			content: [{ type: "text", text: "Images returned by the tool calls above:" }, ...pendingImages],
		});
		pendingImages = [];
	};
	for (const message of normalizeTranscript(context.messages)) {
		if (message.role !== "toolResult") flushImages();
		output.push(...convertMessage(message, pendingImages));
	}
	flushImages();
	return output;
}

function convertMessage(message: Message, pendingImages: ChatCompletionContentPart[]): ChatCompletionMessageParam[] {
	if (message.role === "user") {
		if (typeof message.content === "string") return [{ role: "user", content: message.content }];
		const parts = message.content.map(
			(block): ChatCompletionContentPart =>
				block.type === "text" ? { type: "text", text: block.text } : imageUrl(block),
		);
		return parts.length > 0 ? [{ role: "user", content: parts }] : [];
	}
	if (message.role === "toolResult") {
		const images = message.content.filter((block): block is ImageContent => block.type === "image");
		pendingImages.push(...images.map(imageUrl));
		let text = textOf(message.content);
		if (images.length > 0) text += `${text ? "\n" : ""}(${images.length} image(s) attached in the next message)`;
		return [{ role: "tool", tool_call_id: message.toolCallId, content: text || "(no output)" }];
	}
	const text = message.content
		.filter((block): block is TextContent => block.type === "text")
		.map((block) => block.text)
		.join("");
	const toolCalls: ChatCompletionMessageToolCall[] = toolCallsOf(message).map((call) => ({
		id: call.id,
		type: "function",
		function: {
			name: call.name,
			arguments: argumentsJson(call.arguments),
		},
	}));
	if (!text && toolCalls.length === 0) return [];
	return [
		{
			role: "assistant",
			content: text || null,
			...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
		},
	];
}

/**
 * The arguments as a JSON string. Malformed arguments (kept as the raw string) are sent as `{}`:
 * servers that render tool calls through a chat template parse them and fail on bad JSON, and the
 * error result already shows the model what it sent.
 */
function argumentsJson(args: unknown): string {
	if (typeof args !== "string") return JSON.stringify(args ?? {});
	try {
		JSON.parse(args);
		return args;
	} catch {
		return "{}";
	}
}

function isOfficialOpenAI(baseUrl: string): boolean {
	try {
		return new URL(baseUrl).hostname === "api.openai.com";
	} catch {
		return false;
	}
}

/** Non-standard deltas some compatible servers send (DeepSeek, vLLM, llama.cpp: `reasoning_content`; Ollama, OpenRouter: `reasoning`). */
interface ReasoningDelta {
	reasoning_content?: string | null;
	reasoning?: string | null;
}

/**
 * Streams a reply from an OpenAI-compatible Chat Completions API (OpenAI, Ollama, vLLM,
 * llama.cpp's server, LM Studio, OpenRouter, …). Never throws.
 */
export async function* streamOpenAICompletions(
	model: Model,
	context: ModelContext,
	options: OpenAICompletionsOptions = {},
): AsyncGenerator<AssistantMessageEvent> {
	const baseUrl = model.baseUrl ?? defaultBaseUrl(model.provider) ?? defaultBaseUrl("openai")!;
	const maxTokens = options.maxTokens ?? model.maxTokens;
	const params: ChatCompletionCreateParamsStreaming = {
		model: model.id,
		messages: toOpenAIMessages(context),
		stream: true,
		stream_options: { include_usage: true },
		...(context.tools && context.tools.length > 0 ? { tools: toOpenAITools(context.tools) } : {}),
		...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
		// OpenAI itself wants the newer field; most compatible servers know only the older one.
		...(maxTokens !== undefined
			? isOfficialOpenAI(baseUrl)
				? { max_completion_tokens: maxTokens }
				: { max_tokens: maxTokens }
			: {}),
	};
	yield* streamFromProvider(openAIAdapter, { model, baseUrl, options, request: params });
}

const openAIAdapter: ProviderAdapter<OpenAI, ChatCompletionCreateParamsStreaming> = {
	label: LABEL,
	createClient: (clientOptions) => new OpenAI(clientOptions),
	attempt,
};

async function* attempt(
	client: OpenAI,
	params: ChatCompletionCreateParamsStreaming,
	builder: ReplyBuilder,
	signal: AbortSignal,
): AsyncGenerator<AssistantMessageEvent> {
	const stream = await client.chat.completions.create(params, { signal });
	let current: { kind: "text" | "thinking"; index: number } | undefined;
	const toolBlocks = new Map<number, number>();
	let finishReason: ChatCompletionChunk.Choice["finish_reason"] = null;
	const splitter = new ThinkTagSplitter();
	const openFlow = (kind: "text" | "thinking") => {
		if (current?.kind === kind) return current.index;
		if (current) builder.closeBlock(current.index);
		const index = builder.openBlock(kind === "text" ? { type: "text", text: "" } : { type: "thinking", thinking: "" });
		current = { kind, index };
		return index;
	};
	for await (const chunk of stream) {
		builder.start();
		if (chunk.usage) {
			const cached = chunk.usage.prompt_tokens_details?.cached_tokens ?? 0;
			builder.setUsage({
				inputTokens: Math.max(0, (chunk.usage.prompt_tokens ?? 0) - cached),
				outputTokens: chunk.usage.completion_tokens ?? 0,
				cacheReadTokens: cached,
				cacheWriteTokens: 0,
			});
		}
		const choice = chunk.choices?.[0];
		if (choice) {
			const delta = choice.delta as (ChatCompletionChunk.Choice.Delta & ReasoningDelta) | undefined;
			const reasoning = delta?.reasoning_content ?? delta?.reasoning;
			if (reasoning) builder.append(openFlow("thinking"), reasoning);
			if (delta?.content) {
				for (const segment of splitter.push(delta.content)) builder.append(openFlow(segment.kind), segment.text);
			}
			for (const call of delta?.tool_calls ?? []) {
				let index = toolBlocks.get(call.index);
				if (index === undefined) {
					if (current) builder.closeBlock(current.index);
					current = undefined;
					index = builder.openBlock({
						type: "toolCall",
						id: call.id || `call_${call.index}_${Date.now().toString(36)}`,
						name: call.function?.name ?? "",
						arguments: {},
					});
					toolBlocks.set(call.index, index);
				} else if (call.function?.name) {
					const block = builder.toolCall(index);
					if (block && !block.name) block.name = call.function.name;
				}
				if (call.function?.arguments) builder.append(index, call.function.arguments);
			}
			if (choice.finish_reason) finishReason = choice.finish_reason;
		}
		yield* builder.drain();
	}
	if (signal?.aborted) return;
	for (const segment of splitter.flush()) builder.append(openFlow(segment.kind), segment.text);
	if (finishReason === null) {
		builder.fail("error", `${LABEL} stream ended without a finish reason; the reply may be incomplete.`);
	} else if (finishReason === "length") {
		builder.finish("length");
	} else if (finishReason === "content_filter") {
		builder.fail("error", `${LABEL} stopped the reply: its content filter blocked it.`);
	} else {
		// Some servers say "stop" even when the reply holds tool calls.
		builder.finish(toolBlocks.size > 0 ? "toolUse" : "stop");
	}
	yield* builder.drain();
}
