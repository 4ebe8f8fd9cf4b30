import { Type } from "typebox";
import { executeToolCalls } from "../../src/engine/execute-tool-calls.js";
import type { AgentTool, ToolCall } from "../../src/engine/types.js";
import type { BenchCase } from "../types.js";

const schema = Type.Object({ value: Type.Number() });

function tool(name: string, executionMode: "parallel" | "sequential", delayMs = 0): AgentTool<typeof schema> {
	return {
		name,
		description: "benchmark tool",
		parameters: schema,
		executionMode,
		execute: async (_id, args) => {
			if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
			return { content: [{ type: "text", text: String(args.value) }] };
		},
	};
}

function calls(name: string, count: number): ToolCall[] {
	// A string value exercises coercion on every call, as a sloppy model would.
	return Array.from({ length: count }, (_, index) => ({
		type: "toolCall",
		id: `call-${index}`,
		name,
		arguments: { value: String(index) },
	}));
}

async function runBatch(name: string, mode: "parallel" | "sequential", count: number, delayMs = 0) {
	const tools = [tool(name, mode, delayMs)];
	const { messages } = await executeToolCalls({ tools, toolCalls: calls(name, count), onEvent: () => {} });
	const ok =
		messages.length === count &&
		messages.every(
			(message, index) =>
				!message.isError && message.content[0]?.type === "text" && message.content[0].text === String(index),
		);
	return ok;
}

/** Engine overhead: per-call cost of preparation, validation, scheduling and events. */
export const cases: BenchCase[] = [
	{
		group: "engine",
		name: "1000 no-op calls, parallel batch",
		goal: "< 50 µs per call (50 ms total)",
		maxMs: 50,
		toolbelt: async () => ({ ok: await runBatch("noop", "parallel", 1000) }),
	},
	{
		group: "engine",
		name: "1000 no-op calls, sequential tool",
		goal: "< 50 µs per call (50 ms total)",
		maxMs: 50,
		toolbelt: async () => ({ ok: await runBatch("noop", "sequential", 1000) }),
	},
	{
		group: "engine",
		name: "100 parallel 50 ms sleeps",
		goal: "< 100 ms in all",
		maxMs: 100,
		toolbelt: async () => ({ ok: await runBatch("sleep", "parallel", 100, 50) }),
	},
];
