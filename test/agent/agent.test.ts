import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { messageText } from "../../src/agent/messages.js";
import type { AgentEvent } from "../../src/agent/types.js";
import type { AgentTool } from "../../src/engine/types.js";
import { createFakeModelStream, fakeModel, textReply, toolCallReply } from "../helpers/fake-model-stream.js";

const waitSchema = Type.Object({ ms: Type.Number() });
/** Waits `ms` (honouring abort); lets a test act while a tool batch runs. */
function waitTool(onStart?: () => void): AgentTool<typeof waitSchema> {
	return {
		name: "wait",
		description: "Waits.",
		parameters: waitSchema,
		execute: (_id, args, signal) =>
			new Promise((resolve, reject) => {
				onStart?.();
				const timer = setTimeout(() => resolve({ content: [{ type: "text", text: `waited ${args.ms}` }] }), args.ms);
				signal?.addEventListener("abort", () => {
					clearTimeout(timer);
					reject(Object.assign(new Error("aborted"), { name: "AbortError" }));
				});
			}),
	};
}

describe("Agent", () => {
	it("keeps the transcript across prompts and reports state", async () => {
		const fake = createFakeModelStream([textReply("first"), textReply("second")]);
		const agent = new Agent({ model: fakeModel, streamFn: fake.streamFn, systemPrompt: "sys" });
		const added = await agent.prompt("one");
		expect(added.map((message) => message.role)).toEqual(["user", "assistant"]);
		await agent.prompt("two");
		expect(agent.state.messages.map(messageText)).toEqual(["one", "first", "two", "second"]);
		expect(fake.requests[1]?.context.messages).toHaveLength(3);
		expect(agent.state.isRunning).toBe(false);
		expect(agent.state.lastEndReason).toBe("stop");
	});

	it("delivers every event to subscribers, survives a throwing listener, and unsubscribes", async () => {
		const fake = createFakeModelStream([textReply("hello"), textReply("again")]);
		const agent = new Agent({ model: fakeModel, streamFn: fake.streamFn });
		const seen: AgentEvent["type"][] = [];
		agent.subscribe(() => {
			throw new Error("broken UI");
		});
		const unsubscribe = agent.subscribe((event) => seen.push(event.type));
		await agent.prompt("hi");
		expect(seen[0]).toBe("agent_start");
		expect(seen.at(-1)).toBe("agent_end");
		expect(agent.state.messages).toHaveLength(2);
		unsubscribe();
		const count = seen.length;
		await agent.prompt("again");
		expect(seen).toHaveLength(count);
	});

	it("refuses a second prompt while running, and waitForIdle resolves after the run", async () => {
		const fake = createFakeModelStream([textReply("slow reply")], { eventDelayMs: 20 });
		const agent = new Agent({ model: fakeModel, streamFn: fake.streamFn });
		const running = agent.prompt("hi");
		expect(agent.state.isRunning).toBe(true);
		expect(() => agent.prompt("again")).toThrow(/in progress/);
		await agent.waitForIdle();
		expect(agent.state.isRunning).toBe(false);
		await running;
	});

	it("injects a steering message after the current tool batch", async () => {
		let agent: Agent | undefined;
		const fake = createFakeModelStream([
			toolCallReply([{ name: "wait", arguments: { ms: 100 } }]),
			textReply("adjusted"),
		]);
		agent = new Agent({
			model: fakeModel,
			streamFn: fake.streamFn,
			tools: [waitTool(() => agent?.steer("actually, use tabs"))],
		});
		await agent.prompt("format the file");
		const roles = agent.state.messages.map((message) => message.role);
		expect(roles).toEqual(["user", "assistant", "toolResult", "user", "assistant"]);
		expect(fake.requests[1]?.context.messages.at(-1)).toMatchObject({ role: "user", content: "actually, use tabs" });
	});

	it("runs queued follow-ups one at a time after the agent would stop", async () => {
		const fake = createFakeModelStream([textReply("a"), textReply("b"), textReply("c")]);
		const agent = new Agent({ model: fakeModel, streamFn: fake.streamFn });
		agent.followUp("second question");
		agent.followUp("third question");
		await agent.prompt("first question");
		expect(agent.state.messages.map(messageText)).toEqual([
			"first question",
			"a",
			"second question",
			"b",
			"third question",
			"c",
		]);
	});

	it("aborts a running tool: the call is answered, the run ends as aborted, and the agent can continue", async () => {
		let agent: Agent | undefined;
		const fake = createFakeModelStream([
			toolCallReply([{ name: "wait", arguments: { ms: 10_000 } }]),
			textReply("after abort"),
		]);
		agent = new Agent({
			model: fakeModel,
			streamFn: fake.streamFn,
			tools: [waitTool(() => setTimeout(() => agent?.abort(), 50))],
		});
		const started = Date.now();
		await agent.prompt("wait a long time");
		expect(Date.now() - started).toBeLessThan(3000);
		expect(agent.state.lastEndReason).toBe("aborted");
		expect(agent.state.messages.at(-1)).toMatchObject({ role: "toolResult", isError: true });
		expect(fake.requests).toHaveLength(1);

		await agent.prompt("go on");
		expect(messageText(agent.state.messages.at(-1)!)).toBe("after abort");
		// The next request carries the aborted call with its result, so an API would accept it.
		expect(fake.requests[1]?.context.messages.map((message) => message.role)).toEqual([
			"user",
			"assistant",
			"toolResult",
			"user",
		]);
	});

	it("records the error of a failed run and continues from the transcript", async () => {
		const fake = createFakeModelStream([{ stopReason: "error", errorMessage: "HTTP 500" }, textReply("recovered")]);
		const agent = new Agent({ model: fakeModel, streamFn: fake.streamFn });
		await agent.prompt("hi");
		expect(agent.state.lastEndReason).toBe("error");
		expect(agent.state.lastError).toBe("HTTP 500");
		await agent.continue();
		expect(agent.state.lastError).toBeUndefined();
		expect(messageText(agent.state.messages.at(-1)!)).toBe("recovered");
	});

	it("tracks the streaming message and pending tool calls while running", async () => {
		const fake = createFakeModelStream([toolCallReply([{ name: "wait", arguments: { ms: 50 } }]), textReply("done")]);
		const agent = new Agent({ model: fakeModel, streamFn: fake.streamFn, tools: [waitTool()] });
		let sawStreaming = false;
		let sawPending = false;
		agent.subscribe((event) => {
			if (event.type === "message_update") sawStreaming ||= agent.state.streamingMessage !== undefined;
			if (event.type === "tool_execution_start") sawPending ||= agent.state.pendingToolCalls.size === 1;
		});
		await agent.prompt("go");
		expect(sawStreaming).toBe(true);
		expect(sawPending).toBe(true);
		expect(agent.state.streamingMessage).toBeUndefined();
		expect(agent.state.pendingToolCalls.size).toBe(0);
	});
});
