import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { executeToolCalls } from "../../src/engine/execute-tool-calls.js";
import { composeHooks } from "../../src/engine/hooks.js";
import type { AgentTool } from "../../src/engine/types.js";
import { call, recordingTool, throwingTool } from "./stub-tools.js";

describe("beforeToolCall", () => {
	it("sees validated, coerced arguments", async () => {
		const seen: unknown[] = [];
		await executeToolCalls({
			tools: [recordingTool([])],
			toolCalls: [call("record", { path: "a", limit: "7", flag: "false" })],
			beforeToolCall: ({ args }) => {
				seen.push(args);
				return undefined;
			},
		});
		expect(seen).toEqual([{ path: "a", limit: 7, flag: false }]);
	});

	it("blocks with a reason and no side effect, and can request termination", async () => {
		const recorded: unknown[] = [];
		const result = await executeToolCalls({
			tools: [recordingTool(recorded)],
			toolCalls: [call("record", { path: "a" })],
			beforeToolCall: () => ({ block: true, reason: "not in this folder", terminate: true }),
		});
		expect(recorded).toEqual([]);
		expect(result.terminate).toBe(true);
		expect(result.messages[0]).toMatchObject({
			isError: true,
			content: [{ type: "text", text: "not in this folder" }],
		});
	});

	it("can rewrite arguments, which are validated again before the tool runs", async () => {
		const recorded: unknown[] = [];
		const { messages } = await executeToolCalls({
			tools: [recordingTool(recorded)],
			toolCalls: [call("record", { path: "a" }), call("record", { path: "b" })],
			beforeToolCall: ({ args }) =>
				args.path === "a" ? { args: { path: "rewritten", limit: "4" } } : { args: { limit: 1 } },
		});
		expect(recorded).toEqual([{ path: "rewritten", limit: 4 }]);
		expect(messages[1]).toMatchObject({ isError: true });
		expect(messages[1]!.content[0]).toMatchObject({ text: expect.stringContaining("path: is required") });
	});
});

describe("afterToolCall", () => {
	it("replaces content, details, isError and terminate field by field", async () => {
		const result = await executeToolCalls({
			tools: [recordingTool([]), throwingTool()],
			toolCalls: [call("record", { path: "a" }), call("boom", {})],
			afterToolCall: ({ toolCall, result: current }) => {
				if (toolCall.name === "record") return { details: { replaced: true }, terminate: true };
				return {
					isError: false,
					content: [{ type: "text", text: `recovered from: ${(current.content[0] as { text: string }).text}` }],
				};
			},
		});
		expect(result.terminate).toBe(true);
		expect(result.messages[0]).toMatchObject({
			isError: false,
			content: [{ text: "recorded a" }],
			details: { replaced: true },
		});
		expect(result.messages[1]).toMatchObject({ isError: false, content: [{ text: "recovered from: boom" }] });
	});

	it("turns a throwing hook into an error result instead of a crashed run", async () => {
		const { messages } = await executeToolCalls({
			tools: [recordingTool([])],
			toolCalls: [call("record", { path: "a" })],
			afterToolCall: () => {
				throw new Error("after exploded");
			},
		});
		expect(messages[0]).toMatchObject({
			isError: true,
			content: [{ text: "afterToolCall hook failed: after exploded" }],
		});
	});
});

describe("composeHooks", () => {
	it("chains before-hooks: rewrites flow on, the first block wins and stops the chain", async () => {
		const order: string[] = [];
		const hooks = composeHooks([
			{
				beforeToolCall: ({ args }) => {
					order.push(`first:${String(args.path)}`);
					return { args: { ...args, path: `${String(args.path)}+1` } };
				},
			},
			{
				beforeToolCall: ({ args }) => {
					order.push(`second:${String(args.path)}`);
					return args.path === "blocked+1" ? { block: true, reason: "second says no" } : undefined;
				},
			},
			{
				beforeToolCall: () => {
					order.push("third");
					return { terminate: true };
				},
			},
		]);
		const recorded: unknown[] = [];
		const result = await executeToolCalls({
			tools: [recordingTool(recorded)],
			toolExecution: "sequential",
			toolCalls: [call("record", { path: "blocked" }), call("record", { path: "ok" })],
			...hooks,
		});
		expect(order).toEqual(["first:blocked", "second:blocked+1", "first:ok", "second:ok+1", "third"]);
		expect(recorded).toEqual([{ path: "ok+1" }]);
		expect(result.messages[0]).toMatchObject({ isError: true, content: [{ text: "second says no" }] });
		expect(result.terminate).toBe(true);
	});

	it("chains after-hooks: each sees the result patched by the ones before", async () => {
		const seen: string[] = [];
		const hooks = composeHooks([
			{ afterToolCall: () => ({ content: [{ type: "text", text: "patched once" }] }) },
			undefined,
			{
				afterToolCall: ({ result }) => {
					seen.push((result.content[0] as { text: string }).text);
					return { details: { second: true } };
				},
			},
		]);
		const { messages } = await executeToolCalls({
			tools: [recordingTool([])],
			toolCalls: [call("record", { path: "a" })],
			...hooks,
		});
		expect(seen).toEqual(["patched once"]);
		expect(messages[0]).toMatchObject({ content: [{ text: "patched once" }], details: { second: true } });
	});

	it("returns no hooks for an empty list", () => {
		expect(composeHooks([])).toEqual({ beforeToolCall: undefined, afterToolCall: undefined });
	});
});

describe("hooks of calls made inside a call (code mode)", () => {
	it("see the call whose program made them as parent; the model's own calls have none", async () => {
		const program: AgentTool = {
			name: "program",
			description: "Calls record twice from inside.",
			parameters: Type.Object({}),
			execute: async (_id, _args, signal, _onUpdate, context) => {
				for (const path of ["x", "y"]) await context?.nestedCalls?.run({ name: "record", arguments: { path } }, signal);
				return { content: [{ type: "text", text: "ran" }], details: undefined };
			},
		};
		const seen: string[] = [];
		await executeToolCalls({
			tools: [program, recordingTool([])],
			toolCalls: [call("record", { path: "a" }, "model-1"), call("program", {}, "model-2")],
			toolExecution: "sequential",
			beforeToolCall: ({ toolCall, parent }) => {
				seen.push(`before ${toolCall.id} < ${parent?.id ?? "model"}`);
				return undefined;
			},
			afterToolCall: ({ toolCall, parent }) => {
				seen.push(`after ${toolCall.id} < ${parent?.id ?? "model"}`);
				return undefined;
			},
		});
		expect(seen).toEqual([
			"before model-1 < model",
			"after model-1 < model",
			"before model-2 < model",
			"before model-2.1 < model-2",
			"after model-2.1 < model-2",
			"before model-2.2 < model-2",
			"after model-2.2 < model-2",
			"after model-2 < model",
		]);
	});
});
