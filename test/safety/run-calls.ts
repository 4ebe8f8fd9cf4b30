import { executeToolCalls } from "../../src/engine/execute-tool-calls.js";
import type { AnyAgentTool, ToolHooks, ToolResultMessage } from "../../src/engine/types.js";
import { resultText } from "../helpers/results.js";

let counter = 0;

/** Runs tool calls `[name, args]` through the engine with `hooks`; returns the result messages. */
export async function runCalls(
	tools: readonly AnyAgentTool[],
	hooks: ToolHooks,
	calls: readonly [string, Record<string, unknown>][],
): Promise<ToolResultMessage[]> {
	const toolCalls = calls.map(([name, args]) => ({
		type: "toolCall" as const,
		id: `call-${++counter}`,
		name,
		arguments: args,
	}));
	const { messages } = await executeToolCalls({ tools, toolCalls, ...hooks });
	return messages;
}

/** Runs one call and returns its result message. */
export async function runCall(
	tools: readonly AnyAgentTool[],
	hooks: ToolHooks,
	name: string,
	args: Record<string, unknown>,
): Promise<ToolResultMessage> {
	const [message] = await runCalls(tools, hooks, [[name, args]]);
	if (!message) throw new Error("no result");
	return message;
}

/** The text of a result message. */
export function textOf(message: ToolResultMessage): string {
	return resultText(message, { separator: "\n", markOthers: true });
}
