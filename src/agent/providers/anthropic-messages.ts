import Anthropic from "@anthropic-ai/sdk";
import type {
	StopReason as AnthropicStopReason,
	ContentBlockParam,
	ImageBlockParam,
	MessageCreateParamsStreaming,
	MessageParam,
	RawMessageStreamEvent,
	TextBlockParam,
	ToolResultBlockParam,
} from "@anthropic-ai/sdk/resources/messages";
import type { ImageContent, TextContent } from "../../engine/index.js";
import type { AssistantMessageEvent, Message, Model, ModelContext, StreamOptions, Usage } from "../types.js";
import { defaultBaseUrl } from "./config.js";
import type { ProviderOptions } from "./provider-options.js";
import { type ProviderAdapter, streamFromProvider } from "./provider-stream.js";
import type { ReplyBuilder } from "./reply-builder.js";
import { toAnthropicTools } from "./tool-schemas.js";
import { normalizeTranscript } from "./transcript.js";

/** Options of `streamAnthropicMessages`: per-request options plus provider options. */
export type AnthropicMessagesOptions = StreamOptions & ProviderOptions;

const LABEL = "Anthropic API";
const DEFAULT_MAX_TOKENS = 8192;
const IMAGE_TYPES = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"]);

/** Anthropic accepts tool ids of letters, digits, `_` and `-` only (ids may come from another provider). */
function toolId(id: string): string {
	return id.replace(/[^a-zA-Z0-9_-]/g, "_") || "tool_call";
}

function imageBlock(image: ImageContent): ImageBlockParam | TextBlockParam {
	if (!IMAGE_TYPES.has(image.mimeType)) {
		return { type: "text", text: `(An image of type ${image.mimeType} was omitted: the API does not accept it.)` };
	}
	return {
		type: "image",
		source: { type: "base64", media_type: image.mimeType as "image/png", data: image.data },
	};
}

function contentBlocks(content: readonly (TextContent | ImageContent)[]): (TextBlockParam | ImageBlockParam)[] {
	return content
		.filter((block) => block.type === "image" || block.text !== "")
		.map((block) => (block.type === "text" ? { type: "text", text: block.text } : imageBlock(block)));
}

function assistantBlocks(message: Extract<Message, { role: "assistant" }>): ContentBlockParam[] {
	const blocks: ContentBlockParam[] = [];
	for (const block of message.content) {
		if (block.type === "text") {
			if (block.text) blocks.push({ type: "text", text: block.text });
		} else if (block.type === "thinking") {
			// Unsigned thinking (cut off, or from another provider) would be rejected; it is dropped.
			if (block.redacted && block.signature) blocks.push({ type: "redacted_thinking", data: block.signature });
			else if (block.signature) blocks.push({ type: "thinking", thinking: block.thinking, signature: block.signature });
		} else {
			const input = typeof block.arguments === "object" && block.arguments !== null ? block.arguments : {};
			blocks.push({ type: "tool_use", id: toolId(block.id), name: block.name, input });
		}
	}
	return blocks;
}

/**
 * Converts the transcript to Messages API turns: tool results become `tool_result` blocks
 * (images included) in a user turn, and consecutive user content merges into one turn.
 * The system prompt and the last user turn get cache breakpoints.
 */
export function toAnthropicMessages(messages: readonly Message[]): MessageParam[] {
	const output: MessageParam[] = [];
	const pushTurn = (role: "user" | "assistant", blocks: ContentBlockParam[]) => {
		if (blocks.length === 0) return;
		const last = output.at(-1);
		if (last && last.role === role && Array.isArray(last.content)) last.content.push(...blocks);
		else output.push({ role, content: blocks });
	};
	for (const message of normalizeTranscript(messages)) {
		if (message.role === "user") {
			const blocks =
				typeof message.content === "string"
					? message.content
						? [{ type: "text" as const, text: message.content }]
						: []
					: contentBlocks(message.content);
			pushTurn("user", blocks);
		} else if (message.role === "toolResult") {
			const content = contentBlocks(message.content);
			const block: ToolResultBlockParam = {
				type: "tool_result",
				tool_use_id: toolId(message.toolCallId),
				content: content.length > 0 ? content : [{ type: "text", text: "(no output)" }],
				...(message.isError ? { is_error: true } : {}),
			};
			pushTurn("user", [block]);
		} else {
			pushTurn("assistant", assistantBlocks(message));
		}
	}
	const lastUser = [...output].reverse().find((turn) => turn.role === "user");
	const lastBlock = Array.isArray(lastUser?.content) ? lastUser.content.at(-1) : undefined;
	if (lastBlock && "type" in lastBlock && lastBlock.type !== "thinking" && lastBlock.type !== "redacted_thinking") {
		(lastBlock as TextBlockParam).cache_control = { type: "ephemeral" };
	}
	return output;
}

function stopReasonOf(reason: AnthropicStopReason | null): "stop" | "length" | "toolUse" | "refusal" {
	if (reason === "tool_use") return "toolUse";
	if (reason === "max_tokens" || reason === "model_context_window_exceeded") return "length";
	if (reason === "refusal") return "refusal";
	return "stop";
}

/** Streams a reply from the Anthropic Messages API, with thinking when a budget is set. Never throws. */
export async function* streamAnthropicMessages(
	model: Model,
	context: ModelContext,
	options: AnthropicMessagesOptions = {},
): AsyncGenerator<AssistantMessageEvent> {
	const baseUrl = model.baseUrl ?? defaultBaseUrl("anthropic")!;
	const thinkingBudget = options.thinkingBudgetTokens ?? 0;
	const maxTokens = Math.max(options.maxTokens ?? model.maxTokens ?? DEFAULT_MAX_TOKENS, thinkingBudget + 1024);
	const params: MessageCreateParamsStreaming = {
		model: model.id,
		max_tokens: maxTokens,
		messages: toAnthropicMessages(context.messages),
		stream: true,
		...(context.systemPrompt
			? { system: [{ type: "text", text: context.systemPrompt, cache_control: { type: "ephemeral" } }] }
			: {}),
		...(context.tools && context.tools.length > 0 ? { tools: toAnthropicTools(context.tools) } : {}),
		// Anthropic rejects a temperature other than 1 together with thinking.
		...(options.temperature !== undefined && thinkingBudget === 0 ? { temperature: options.temperature } : {}),
		...(thinkingBudget > 0 ? { thinking: { type: "enabled", budget_tokens: Math.max(1024, thinkingBudget) } } : {}),
	};
	yield* streamFromProvider(anthropicAdapter, { model, baseUrl, options, request: params });
}

const anthropicAdapter: ProviderAdapter<Anthropic, MessageCreateParamsStreaming> = {
	label: LABEL,
	createClient: (clientOptions) => new Anthropic(clientOptions),
	attempt,
};

async function* attempt(
	client: Anthropic,
	params: MessageCreateParamsStreaming,
	builder: ReplyBuilder,
	signal: AbortSignal,
): AsyncGenerator<AssistantMessageEvent> {
	const stream = await client.messages.create(params, { signal });
	// Anthropic's block indices count server-side blocks too; map them to ours.
	const blocks = new Map<number, number>();
	const usage: Omit<Usage, "totalTokens"> = {
		inputTokens: 0,
		outputTokens: 0,
		cacheReadTokens: 0,
		cacheWriteTokens: 0,
	};
	let stopReason: AnthropicStopReason | null = null;
	let stopped = false;
	for await (const event of stream as AsyncIterable<RawMessageStreamEvent>) {
		switch (event.type) {
			case "message_start": {
				builder.start();
				const start = event.message.usage;
				usage.inputTokens = start.input_tokens ?? 0;
				usage.outputTokens = start.output_tokens ?? 0;
				usage.cacheReadTokens = start.cache_read_input_tokens ?? 0;
				usage.cacheWriteTokens = start.cache_creation_input_tokens ?? 0;
				builder.setUsage(usage);
				break;
			}
			case "content_block_start": {
				const block = event.content_block;
				if (block.type === "text") {
					blocks.set(event.index, builder.openBlock({ type: "text", text: "" }));
					if (block.text) builder.append(blocks.get(event.index)!, block.text);
				} else if (block.type === "thinking") {
					blocks.set(event.index, builder.openBlock({ type: "thinking", thinking: "" }));
					if (block.thinking) builder.append(blocks.get(event.index)!, block.thinking);
				} else if (block.type === "redacted_thinking") {
					blocks.set(
						event.index,
						builder.openBlock({ type: "thinking", thinking: "", redacted: true, signature: block.data }),
					);
				} else if (block.type === "tool_use") {
					const input = block.input && Object.keys(block.input).length > 0 ? JSON.stringify(block.input) : "";
					blocks.set(
						event.index,
						builder.openBlock({ type: "toolCall", id: block.id, name: block.name, arguments: {} }, input),
					);
				}
				break;
			}
			case "content_block_delta": {
				const index = blocks.get(event.index);
				if (index === undefined) break;
				const delta = event.delta;
				if (delta.type === "text_delta") builder.append(index, delta.text);
				else if (delta.type === "thinking_delta") builder.append(index, delta.thinking);
				else if (delta.type === "input_json_delta") builder.append(index, delta.partial_json);
				else if (delta.type === "signature_delta") builder.setSignature(index, delta.signature);
				break;
			}
			case "content_block_stop": {
				const index = blocks.get(event.index);
				if (index !== undefined) builder.closeBlock(index);
				break;
			}
			case "message_delta": {
				if (event.delta.stop_reason) stopReason = event.delta.stop_reason;
				const delta = event.usage;
				if (delta.input_tokens != null) usage.inputTokens = delta.input_tokens;
				if (delta.cache_read_input_tokens != null) usage.cacheReadTokens = delta.cache_read_input_tokens;
				if (delta.cache_creation_input_tokens != null) usage.cacheWriteTokens = delta.cache_creation_input_tokens;
				usage.outputTokens = delta.output_tokens ?? usage.outputTokens;
				builder.setUsage(usage);
				break;
			}
			case "message_stop":
				stopped = true;
				break;
		}
		yield* builder.drain();
	}
	if (signal?.aborted) return;
	if (!stopped && stopReason === null) {
		builder.fail("error", `${LABEL} stream ended before the reply was complete.`);
	} else {
		const reason = stopReasonOf(stopReason);
		if (reason === "refusal") builder.fail("error", `${LABEL}: the model declined to answer (stop reason "refusal").`);
		else builder.finish(reason);
	}
	yield* builder.drain();
}
