import type { ImageContent, TextContent } from "../engine/index.js";
import type {
	AssistantMessage,
	Message,
	Model,
	StopReason,
	ToolCall,
	ToolResultMessage,
	Usage,
	UserMessage,
} from "./types.js";

/** Builds a user message from text and optional images. */
export function createUserMessage(text: string, images: readonly ImageContent[] = []): UserMessage {
	if (images.length === 0) return { role: "user", content: text, timestamp: Date.now() };
	const content: (TextContent | ImageContent)[] = [{ type: "text", text }, ...images];
	return { role: "user", content, timestamp: Date.now() };
}

/** A usage record with every count at zero. */
export function emptyUsage(): Usage {
	return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, totalTokens: 0 };
}

/** An empty assistant message for `model`, to be filled while a reply streams. */
export function createAssistantMessage(model: Pick<Model, "provider" | "id">): AssistantMessage {
	return {
		role: "assistant",
		content: [],
		provider: model.provider,
		model: model.id,
		usage: emptyUsage(),
		stopReason: "stop",
		timestamp: Date.now(),
	};
}

/** Options of `createErrorReply`. */
export interface ErrorReplyOptions {
	/** The model the request went to. */
	model: Pick<Model, "provider" | "id">;
	/** Readable explanation. */
	errorMessage: string;
	/** `error` or `aborted`. Default: `error`. */
	stopReason?: Extract<StopReason, "error" | "aborted">;
	/** What had streamed before the failure; its content and usage are kept. Default: none. */
	partial?: AssistantMessage;
}

/** An assistant message that reports a failed or aborted request. */
export function createErrorReply(options: ErrorReplyOptions): AssistantMessage {
	const base = options.partial ?? createAssistantMessage(options.model);
	return {
		...base,
		content: [...base.content],
		stopReason: options.stopReason ?? "error",
		errorMessage: options.errorMessage,
	};
}

/** The tool-call blocks of an assistant message, in order. */
export function toolCallsOf(message: AssistantMessage): ToolCall[] {
	return message.content.filter((block): block is ToolCall => block.type === "toolCall");
}

/** An error tool result for a call that was never run, with `text` telling the model why. */
export function createSkippedToolResult(toolCall: ToolCall, text: string): ToolResultMessage {
	return {
		role: "toolResult",
		toolCallId: toolCall.id,
		toolName: toolCall.name,
		content: [{ type: "text", text }],
		isError: true,
		timestamp: Date.now(),
	};
}

/** The text of a message's text blocks, joined (thinking and tool calls excluded). */
export function messageText(message: Message): string {
	if (typeof message.content === "string") return message.content;
	return message.content
		.filter((block): block is TextContent => block.type === "text")
		.map((block) => block.text)
		.join("");
}
