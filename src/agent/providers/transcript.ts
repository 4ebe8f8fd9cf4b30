import { createSkippedToolResult, toolCallsOf } from "../messages.js";
import type { AssistantMessage, Message, ToolResultMessage } from "../types.js";

/** The name sent for a tool call cut off before its name streamed: the APIs reject an empty name. */
export const UNNAMED_TOOL_CALL_NAME = "unnamed_tool";

/** Told to the model for a tool call that has no result in the transcript. */
export const MISSING_TOOL_RESULT_TEXT = "No result was recorded for this tool call; it may not have run.";

/**
 * Makes a transcript acceptable to the APIs, which reject a tool call without a result and a
 * result without its call: each assistant message's tool calls are followed by exactly one
 * result each (missing ones are synthesized as errors, duplicates and orphans dropped), and
 * results come straight after their assistant message.
 */
export function normalizeTranscript(messages: readonly Message[]): Message[] {
	const output: Message[] = [];
	let index = 0;
	while (index < messages.length) {
		const message = messages[index]!;
		index++;
		if (message.role === "toolResult") continue; // An orphan: its call is not directly before it.
		if (message.role !== "assistant") {
			output.push(message);
			continue;
		}
		output.push(withNamedToolCalls(message));
		const calls = toolCallsOf(message);
		if (calls.length === 0) continue;
		const results = new Map<string, ToolResultMessage>();
		const others: Message[] = [];
		// Results may be interleaved with steering messages; collect until the next assistant turn.
		while (index < messages.length && messages[index]!.role !== "assistant") {
			const next = messages[index]!;
			index++;
			if (next.role === "toolResult") {
				if (calls.some((call) => call.id === next.toolCallId) && !results.has(next.toolCallId)) {
					results.set(next.toolCallId, next);
				}
			} else {
				others.push(next);
			}
		}
		for (const call of calls)
			output.push(results.get(call.id) ?? createSkippedToolResult(call, MISSING_TOOL_RESULT_TEXT));
		output.push(...others);
	}
	return output;
}

/** The message, with a placeholder name for tool calls aborted before their name arrived. */
function withNamedToolCalls(message: AssistantMessage): AssistantMessage {
	if (!message.content.some((block) => block.type === "toolCall" && block.name === "")) return message;
	return {
		...message,
		content: message.content.map((block) =>
			block.type === "toolCall" && block.name === "" ? { ...block, name: UNNAMED_TOOL_CALL_NAME } : block,
		),
	};
}
