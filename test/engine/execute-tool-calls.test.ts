import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { executeToolCalls } from "../../src/engine/execute-tool-calls.js";
import type { AgentTool, ToolExecutionEvent } from "../../src/engine/types.js";
import { type HasContent, resultText } from "../helpers/results.js";
import { call, recordingTool, type Span, sleepTool, throwingTool } from "./stub-tools.js";

const overlaps = (a: Span, b: Span) => a.start < b.end && b.start < a.end;
const texts = (messages: HasContent[]) => messages.map((message) => resultText(message));

describe("executeToolCalls: scheduling", () => {
	// Timing under a loaded machine can stall a worker; a retry keeps the bound meaningful without flaking.
	it("runs parallel calls concurrently", { retry: 2 }, async () => {
		const started = performance.now();
		const { messages } = await executeToolCalls({
			tools: [sleepTool()],
			toolCalls: [call("sleep", { ms: 200 }), call("sleep", { ms: 200 })],
		});
		expect(performance.now() - started).toBeLessThan(350);
		expect(messages.map((message) => message.isError)).toEqual([false, false]);
	});

	it("runs every call one at a time in sequential mode", async () => {
		const spans: Span[] = [];
		await executeToolCalls({
			tools: [sleepTool({ spans })],
			toolExecution: "sequential",
			toolCalls: [call("sleep", { ms: 40, label: "a" }), call("sleep", { ms: 40, label: "b" })],
		});
		expect(spans).toHaveLength(2);
		expect(overlaps(spans[0]!, spans[1]!)).toBe(false);
	});

	it("treats a sequential tool as a barrier: it never overlaps an earlier or later call", async () => {
		const spans: Span[] = [];
		const tools = [sleepTool({ spans }), sleepTool({ name: "write", mode: "sequential", spans })];
		await executeToolCalls({
			tools,
			toolCalls: [
				call("sleep", { ms: 60, label: "p1" }),
				call("sleep", { ms: 30, label: "p2" }),
				call("write", { ms: 40, label: "barrier" }),
				call("sleep", { ms: 30, label: "p3" }),
				call("sleep", { ms: 30, label: "p4" }),
			],
		});
		const byLabel = Object.fromEntries(spans.map((span) => [span.label, span]));
		const barrier = byLabel.barrier!;
		for (const label of ["p1", "p2", "p3", "p4"]) expect(overlaps(barrier, byLabel[label]!)).toBe(false);
		expect(barrier.start).toBeGreaterThanOrEqual(Math.max(byLabel.p1!.end, byLabel.p2!.end));
		expect(byLabel.p3!.start).toBeGreaterThanOrEqual(barrier.end);
		expect(overlaps(byLabel.p1!, byLabel.p2!)).toBe(true);
		expect(overlaps(byLabel.p3!, byLabel.p4!)).toBe(true);
	});

	it("prepares a call just before it can start, so hooks see the effects of earlier barriers", async () => {
		const spans: Span[] = [];
		const seenAt: Record<string, number> = {};
		await executeToolCalls({
			tools: [sleepTool({ name: "write", mode: "sequential", spans }), sleepTool({ spans })],
			toolCalls: [call("write", { ms: 50, label: "w" }), call("sleep", { ms: 1, label: "after" })],
			beforeToolCall: ({ args }) => {
				seenAt[String(args.label)] = performance.now();
				return undefined;
			},
		});
		const write = spans.find((span) => span.label === "w")!;
		expect(seenAt.after).toBeGreaterThanOrEqual(write.end);
	});
});

describe("executeToolCalls: exactly one result per call, in source order", () => {
	it("covers success, throw, unknown tool, invalid arguments, block and a throwing hook", async () => {
		const recorded: unknown[] = [];
		const events: ToolExecutionEvent[] = [];
		const { messages } = await executeToolCalls({
			tools: [
				recordingTool(recorded),
				throwingTool(),
				recordingTool(recorded, "guarded"),
				recordingTool(recorded, "fragile"),
			],
			toolCalls: [
				call("record", { path: "ok", limit: "3" }, "1"),
				call("boom", { message: "disk on fire" }, "2"),
				call("nope", {}, "3"),
				call("record", { limit: "many" }, "4"),
				call("guarded", { path: "secret" }, "5"),
				call("fragile", { path: "x" }, "6"),
			],
			beforeToolCall: ({ toolCall }) => {
				if (toolCall.name === "guarded") return { block: true, reason: "guarded is not allowed here" };
				if (toolCall.name === "fragile") throw new Error("hook exploded");
				return undefined;
			},
			onEvent: (event) => events.push(event),
		});
		expect(messages.map((message) => message.toolCallId)).toEqual(["1", "2", "3", "4", "5", "6"]);
		expect(messages.map((message) => message.isError)).toEqual([false, true, true, true, true, true]);
		const [ok, thrown, unknown, invalid, blocked, hookError] = texts(messages);
		expect(ok).toBe("recorded ok");
		expect(thrown).toBe("disk on fire");
		expect(unknown).toContain('Tool "nope" not found. Available tools: record, boom, guarded, fragile.');
		expect(invalid).toContain("- path: is required");
		expect(invalid).toContain("- limit: must be number");
		expect(blocked).toBe("guarded is not allowed here");
		expect(hookError).toContain("beforeToolCall hook failed: hook exploded");
		// A blocked or invalid call never runs: only the first call reached the tool, coerced.
		expect(recorded).toEqual([{ path: "ok", limit: 3 }]);
		for (const id of ["1", "2", "3", "4", "5", "6"]) {
			expect(events.filter((event) => event.type === "tool_execution_start" && event.toolCallId === id)).toHaveLength(
				1,
			);
			expect(events.filter((event) => event.type === "tool_execution_end" && event.toolCallId === id)).toHaveLength(1);
		}
	});

	it("emits end events in completion order and results in source order", async () => {
		const ends: string[] = [];
		const { messages } = await executeToolCalls({
			tools: [sleepTool()],
			toolCalls: [call("sleep", { ms: 80 }, "slow"), call("sleep", { ms: 5 }, "fast")],
			onEvent: (event) => {
				if (event.type === "tool_execution_end") ends.push(event.toolCallId);
			},
		});
		expect(ends).toEqual(["fast", "slow"]);
		expect(messages.map((message) => message.toolCallId)).toEqual(["slow", "fast"]);
	});

	it("keeps ToolError details and survives a listener that throws", async () => {
		const { ToolError } = await import("../../src/engine/errors.js");
		const schema = Type.Object({});
		const tool: AgentTool<typeof schema> = {
			name: "exit",
			description: "",
			parameters: schema,
			execute: async () => {
				throw new ToolError("Command exited with code 3", { exitCode: 3 });
			},
		};
		const { messages } = await executeToolCalls({
			tools: [tool],
			toolCalls: [call("exit", {})],
			onEvent: () => {
				throw new Error("listener bug");
			},
		});
		expect(messages[0]).toMatchObject({ isError: true, details: { exitCode: 3 } });
	});

	it("parses arguments sent as a JSON string and runs prepareArguments before validation", async () => {
		const recorded: unknown[] = [];
		const tool = {
			...recordingTool(recorded),
			prepareArguments: (args: unknown) => {
				const { file, ...rest } = args as { file?: string };
				return file === undefined ? rest : { ...rest, path: file };
			},
		};
		const toolCall = call("record", {});
		(toolCall as { arguments: unknown }).arguments = '{"file":"a.txt","limit":"2"}';
		const { messages } = await executeToolCalls({ tools: [tool], toolCalls: [toolCall] });
		expect(messages[0]!.isError).toBe(false);
		expect(recorded).toEqual([{ path: "a.txt", limit: 2 }]);
	});
});

describe("executeToolCalls: malformed JSON arguments", () => {
	it("says the arguments are not valid JSON and echoes them, without running the tool", async () => {
		const recorded: unknown[] = [];
		const toolCall = call("record", {});
		// Cut off inside a string: not repaired (test/engine/argument-repair.test.ts has the repaired kinds).
		(toolCall as { arguments: unknown }).arguments = '{"path": "a.txt", "limit": 2, "note": "cut o';
		const { messages } = await executeToolCalls({ tools: [recordingTool(recorded)], toolCalls: [toolCall] });
		expect(messages[0]!.isError).toBe(true);
		expect(texts(messages)[0]).toMatch(/arguments for tool "record" are not valid JSON[\s\S]*"limit": 2/);
		expect(recorded).toEqual([]);
	});
});

describe("executeToolCalls: abort", () => {
	it("gives running calls the signal and unstarted calls an aborted result", async () => {
		const controller = new AbortController();
		const spans: Span[] = [];
		setTimeout(() => controller.abort(), 50);
		const started = performance.now();
		const { messages } = await executeToolCalls({
			tools: [sleepTool({ spans }), sleepTool({ name: "write", mode: "sequential", spans })],
			signal: controller.signal,
			toolCalls: [
				call("sleep", { ms: 5000, label: "running" }, "a"),
				call("write", { ms: 10, label: "never" }, "b"),
				call("sleep", { ms: 10, label: "never2" }, "c"),
			],
		});
		expect(performance.now() - started).toBeLessThan(1000);
		expect(messages).toHaveLength(3);
		expect(messages.every((message) => message.isError)).toBe(true);
		const [running, notStarted, notStarted2] = texts(messages);
		expect(running).toContain("cancelled");
		expect(notStarted).toContain("aborted before this call started");
		expect(notStarted2).toContain("aborted before this call started");
		expect(spans.map((span) => span.label)).toEqual(["running"]);
	});

	it("settles a call whose tool ignores the signal after the grace period", async () => {
		const schema = Type.Object({});
		const stubborn: AgentTool<typeof schema> = {
			name: "stubborn",
			description: "",
			parameters: schema,
			execute: () => new Promise(() => {}),
		};
		const controller = new AbortController();
		setTimeout(() => controller.abort(), 20);
		const { messages } = await executeToolCalls({
			tools: [stubborn],
			toolCalls: [call("stubborn", {})],
			signal: controller.signal,
			abortGraceMs: 50,
		});
		expect(messages[0]).toMatchObject({ isError: true });
	});
});

describe("executeToolCalls: updates", () => {
	it("sends a call's first update at once and none after its result", async () => {
		const schema = Type.Object({});
		let late: ((update: { content: { type: "text"; text: string }[] }) => void) | undefined;
		const tool: AgentTool<typeof schema> = {
			name: "late",
			description: "",
			parameters: schema,
			execute: async (_id, _args, _signal, onUpdate) => {
				onUpdate?.({ content: [{ type: "text", text: "first" }] });
				late = onUpdate;
				return { content: [{ type: "text", text: "done" }] };
			},
		};
		// One that sends nothing until after its result (no update was ever made for it).
		let silentLate: typeof late;
		const silent: AgentTool<typeof schema> = {
			name: "silent",
			description: "",
			parameters: schema,
			execute: async (_id, _args, _signal, onUpdate) => {
				silentLate = onUpdate;
				return { content: [{ type: "text", text: "done" }] };
			},
		};
		const updates: unknown[] = [];
		await executeToolCalls({
			tools: [tool, silent],
			toolCalls: [call("late", {}), call("silent", {})],
			onEvent: (event) => {
				if (event.type === "tool_execution_update") updates.push(event.partialResult);
			},
		});
		late?.({ content: [{ type: "text", text: "after the result" }] });
		silentLate?.({ content: [{ type: "text", text: "after the result" }] });
		await new Promise((resolve) => setTimeout(resolve, 150));
		expect(updates).toEqual([{ content: [{ type: "text", text: "first" }] }]);
	});

	it("throttles tool_execution_update events per call", async () => {
		const schema = Type.Object({});
		const chatty: AgentTool<typeof schema> = {
			name: "chatty",
			description: "",
			parameters: schema,
			execute: async (_id, _args, _signal, onUpdate) => {
				for (let index = 0; index < 30; index++) {
					onUpdate?.({ content: [{ type: "text", text: String(index) }] });
					await new Promise((resolve) => setTimeout(resolve, 10));
				}
				return { content: [{ type: "text", text: "done" }] };
			},
		};
		const updates: number[] = [];
		const started = performance.now();
		await executeToolCalls({
			tools: [chatty],
			toolCalls: [call("chatty", {})],
			updateIntervalMs: 100,
			onEvent: (event) => {
				if (event.type === "tool_execution_update") updates.push(performance.now());
			},
		});
		// At most one update per interval of the call's real duration (a loaded machine makes the
		// 30 sleeps of 10 ms last longer, and so allows more updates), far below 30.
		const allowed = Math.floor((performance.now() - started) / 100) + 1;
		expect(updates.length).toBeGreaterThanOrEqual(2);
		expect(updates.length).toBeLessThanOrEqual(Math.min(allowed, 29));
		for (let index = 1; index < updates.length; index++) {
			expect(updates[index]! - updates[index - 1]!).toBeGreaterThanOrEqual(90);
		}
	});
});
