import type { Tool, ToolExecutionOptions } from "ai";
import type { ToolResultContent, ToolResultMessage } from "../../engine/index.js";
import { latestUpdates } from "../shared/latest-updates.js";
import { plainParameters, resultText, type ToolbeltToolSet } from "../shared/tool-set.js";

/** What a toolbelt tool returns to the AI SDK (final and preliminary results alike). */
export interface ToolbeltAiSdkOutput {
	/** What the model reads: text blocks and images (base64). */
	content: ToolResultContent[];
	/** Structured facts for programs and UIs (exit code, diff, truncation); never sent to the model. */
	details?: unknown;
}

/** A record of AI SDK tools, keyed by tool name, for `generateText` / `streamText`. */
export type ToolbeltAiSdkTools = Record<string, Tool<Record<string, unknown>, ToolbeltAiSdkOutput>>;

/** What `toModelOutput` gives the SDK (its `ToolResultOutput`). */
export type AiSdkModelOutput = Awaited<ReturnType<NonNullable<Tool["toModelOutput"]>>>;

/** The parts of the `ai` module the adapter uses. */
export interface AiSdkModule {
	tool: typeof import("ai").tool;
	jsonSchema: typeof import("ai").jsonSchema;
}

/** Images become file parts with their media type, so the model sees them as images. */
export function toAiSdkModelOutput(output: ToolbeltAiSdkOutput): AiSdkModelOutput {
	return {
		type: "content",
		value: output.content.map((block) =>
			block.type === "text"
				? { type: "text" as const, text: block.text }
				: { type: "file" as const, data: { type: "data" as const, data: block.data }, mediaType: block.mimeType },
		),
	};
}

function outputOf(message: Pick<ToolResultMessage, "content" | "details">): ToolbeltAiSdkOutput {
	return message.details === undefined
		? { content: message.content }
		: { content: message.content, details: message.details };
}

/**
 * Turns a tool set into AI SDK tools: `execute` is an async iterable, so progress reaches the SDK
 * as preliminary results, and a failed call (validation, a safety block, a tool error) throws so
 * the SDK reports it to the model as a tool error.
 */
export function toAiSdkTools(ai: AiSdkModule, set: ToolbeltToolSet): ToolbeltAiSdkTools {
	const tools: ToolbeltAiSdkTools = {};
	for (const engineTool of set.tools) {
		async function* execute(input: Record<string, unknown>, options: ToolExecutionOptions<unknown>) {
			const updates = latestUpdates((onUpdate) =>
				set.run(engineTool.name, input, { toolCallId: options.toolCallId, signal: options.abortSignal, onUpdate }),
			);
			for (;;) {
				const next = await updates.next();
				if (next.done) {
					if (next.value.isError) throw new Error(resultText(next.value));
					yield outputOf(next.value);
					return;
				}
				yield outputOf(next.value);
			}
		}
		tools[engineTool.name] = ai.tool({
			description: engineTool.description,
			inputSchema: ai.jsonSchema<Record<string, unknown>>(plainParameters(engineTool) as never),
			execute,
			toModelOutput: ({ output }) => toAiSdkModelOutput(output),
		});
	}
	return tools;
}
