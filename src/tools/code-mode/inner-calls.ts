import {
	type AnyAgentTool,
	createCallGate,
	isAbortError,
	type NestedToolCalls,
	type ToolResultMessage,
} from "../../engine/index.js";
import type { InnerReply } from "./run-program.js";

/** The value a program gets from a tool call that succeeded. */
export interface InnerValue {
	/** The result's text, as the model would read it (already cut by the tool's own budget). */
	text: string;
	/** The tool's structured `details` (exit code, matches, diff, truncation facts, …). */
	details: unknown;
	/** Images in the result, by MIME type (their bytes stay outside the program). */
	images?: string[];
}

/** The tools a program calls, and the one way each call reaches the engine. */
export interface InnerCalls {
	/** The names under `tools` in the program. */
	names: string[];
	/** Runs one call of the program; never throws. */
	call(name: string, args: unknown, signal: AbortSignal): Promise<InnerReply>;
}

function replyOf(message: ToolResultMessage): InnerReply {
	const text = message.content
		.filter((block) => block.type === "text")
		.map((block) => block.text)
		.join("\n");
	if (message.isError) return { error: text, details: message.details };
	const images = message.content.filter((block) => block.type === "image").map((block) => block.mimeType);
	return { value: { text, details: message.details, ...(images.length > 0 ? { images } : {}) } satisfies InnerValue };
}

/**
 * The batch's tools for one program (all but the code tool itself: a program does not start
 * programs). Each call goes to `nested.run` — the path of a direct call, hooks and all — through
 * a call gate of the program's own, so its calls are scheduled as a model's calls of one reply
 * are: reads overlap, a write, edit or command waits for every call the program made before it
 * and later calls wait for it.
 */
export function createInnerCalls(nested: NestedToolCalls, selfName: string): InnerCalls {
	const gate = createCallGate();
	const tools = new Map<string, AnyAgentTool>();
	for (const tool of nested.tools) if (tool.name !== selfName) tools.set(tool.name, tool);
	return {
		names: [...tools.keys()],
		call: async (name, args, signal) => {
			const tool = tools.get(name);
			if (!tool) return { error: `There is no tool "${name}" here. Tools: ${[...tools.keys()].join(", ")}.` };
			const argumentsObject = (typeof args === "object" && args !== null ? args : { value: args }) as Record<
				string,
				unknown
			>;
			try {
				const message = await gate.run(() => nested.run({ name, arguments: argumentsObject }, signal), {
					mode: tool.executionMode,
					signal,
				});
				return replyOf(message);
			} catch (error) {
				if (isAbortError(error)) return { error: `Tool "${name}" was not run: the program was stopped first.` };
				return { error: error instanceof Error ? error.message : String(error) };
			}
		},
	};
}
