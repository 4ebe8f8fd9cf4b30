import type { ToolMessage } from "@langchain/core/messages";
import type { DynamicStructuredTool, ToolRunnableConfig } from "@langchain/core/tools";
import type { ToolResult, ToolResultMessage } from "../../engine/index.js";
import { latestUpdates } from "../shared/latest-updates.js";
import { fallbackCallId, plainParameters, resultText, type ToolbeltToolSet } from "../shared/tool-set.js";

/** The parts of `@langchain/core` the adapter uses. */
export interface LangChainModules {
	tool: typeof import("@langchain/core/tools").tool;
	ToolMessage: typeof import("@langchain/core/messages").ToolMessage;
}

/** Message content as LangChain takes it: text alone as a string, otherwise text and standard image blocks. */
export type LangChainToolContent =
	| string
	| ({ type: "text"; text: string } | { type: "image"; mimeType: string; data: string })[];

/** The artifact of a toolbelt tool message: the result's structured `details` (never sent to the model). */
export type ToolbeltArtifact = unknown;

/** Converts engine content into LangChain content; images become standard `image` blocks (base64 and media type). */
export function toLangChainContent(message: Pick<ToolResultMessage, "content">): LangChainToolContent {
	if (message.content.every((block) => block.type === "text")) return resultText(message);
	return message.content.map((block) =>
		block.type === "text"
			? { type: "text" as const, text: block.text }
			: { type: "image" as const, mimeType: block.mimeType, data: block.data },
	);
}

/**
 * Turns a tool set into LangChain tools with `responseFormat: "content_and_artifact"`: the content
 * is what the model reads, the artifact the typed `details`. `invoke` with a tool call runs
 * through the engine with LangChain's `signal`; progress goes to LangChain's callbacks as tool
 * events; a failed call becomes a `ToolMessage` with `status: "error"` (invoked without a tool
 * call, it throws).
 */
export function toLangChainTools(langChain: LangChainModules, set: ToolbeltToolSet): DynamicStructuredTool[] {
	return set.tools.map((engineTool) => {
		async function* run(input: unknown, config: ToolRunnableConfig) {
			const toolCallId = config.toolCall?.id;
			const updates = latestUpdates((onUpdate) =>
				set.run(engineTool.name, input, {
					toolCallId: toolCallId ?? fallbackCallId(engineTool.name),
					signal: config.signal,
					onUpdate,
				}),
			);
			for (;;) {
				const next: IteratorResult<ToolResult, ToolResultMessage> = await updates.next();
				if (!next.done) {
					yield { toolbeltProgress: toLangChainContent(next.value), details: next.value.details };
					continue;
				}
				const message = next.value;
				if (!message.isError) return [toLangChainContent(message), message.details] as const;
				if (!toolCallId) throw new Error(resultText(message));
				const error: ToolMessage = new langChain.ToolMessage({
					status: "error",
					content: toLangChainContent(message),
					artifact: message.details,
					tool_call_id: toolCallId,
					name: engineTool.name,
				});
				return [error, undefined] as const;
			}
		}
		return langChain.tool(run as never, {
			name: engineTool.name,
			description: engineTool.description,
			schema: plainParameters(engineTool) as never,
			responseFormat: "content_and_artifact",
		}) as unknown as DynamicStructuredTool;
	});
}
