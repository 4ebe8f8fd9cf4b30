import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { executeToolCalls } from "../../src/engine/execute-tool-calls.js";
import { composeHooks } from "../../src/engine/hooks.js";
import type { AgentTool, ToolTarget } from "../../src/engine/types.js";

function pathTool(seen: (ToolTarget | undefined)[]): AgentTool {
	return {
		name: "touch",
		description: "Declares a write of its path.",
		parameters: Type.Object({ path: Type.String() }),
		target: (args) => ({ access: "write", path: (args as { path: string }).path }),
		execute: async (_id, _args, _signal, _onUpdate, context) => {
			seen.push(context?.target);
			return { content: [{ type: "text", text: "ok" }] };
		},
	};
}

describe("a call's target", () => {
	it("is declared once, and the same object reaches every hook and execute", async () => {
		const seen: (ToolTarget | undefined)[] = [];
		const hooks = composeHooks([
			{ beforeToolCall: ({ target }) => void seen.push(target) },
			{ beforeToolCall: ({ target }) => void seen.push(target) },
			{ afterToolCall: ({ target }) => void seen.push(target) },
		]);
		await executeToolCalls({
			tools: [pathTool(seen)],
			toolCalls: [{ type: "toolCall", id: "1", name: "touch", arguments: { path: "a" } }],
			...hooks,
		});
		expect(seen).toHaveLength(4);
		expect(seen[0]).toEqual({ access: "write", path: "a" });
		for (const target of seen) expect(target).toBe(seen[0]);
	});

	it("follows rewritten arguments: later hooks and execute see the new call's target", async () => {
		const seen: (ToolTarget | undefined)[] = [];
		const hooks = composeHooks([
			{ beforeToolCall: () => ({ args: { path: "b" } }) },
			{ beforeToolCall: ({ target }) => void seen.push(target) },
		]);
		await executeToolCalls({
			tools: [pathTool(seen)],
			toolCalls: [{ type: "toolCall", id: "1", name: "touch", arguments: { path: "a" } }],
			...hooks,
		});
		expect(seen.map((target) => target?.path)).toEqual(["b", "b"]);
	});

	it("is { access: 'execute' } for a tool that declares none", async () => {
		const seen: (ToolTarget | undefined)[] = [];
		const tool: AgentTool = { ...pathTool(seen), target: undefined };
		await executeToolCalls({
			tools: [tool],
			toolCalls: [{ type: "toolCall", id: "1", name: "touch", arguments: { path: "a" } }],
		});
		expect(seen).toEqual([{ access: "execute" }]);
	});
});
