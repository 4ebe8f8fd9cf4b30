import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { agentLoop, TRUNCATED_TOOL_CALL_TEXT } from "../../src/agent/agent-loop.js";
import { createUserMessage, toolCallsOf } from "../../src/agent/messages.js";
import type { AgentEvent, AgentLoopConfig, Message, ToolResultMessage } from "../../src/agent/types.js";
import type { AgentTool, AnyAgentTool } from "../../src/engine/types.js";
import {
	createFakeModelStream,
	errorReply,
	fakeModel,
	textReply,
	toolCallReply,
} from "../helpers/fake-model-stream.js";
import { useTempDir } from "../helpers/temp-dir.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const echoSchema = Type.Object({ text: Type.String() });
/** Answers with its argument after `delayMs`, honouring the abort signal. */
function echoTool(options: { delayMs?: number; log?: string[] } = {}): AgentTool<typeof echoSchema> {
	return {
		name: "echo",
		description: "Echoes text.",
		parameters: echoSchema,
		async execute(_id, args, signal) {
			options.log?.push(`start ${args.text}`);
			if (options.delayMs) {
				await new Promise<void>((resolve, reject) => {
					const timer = setTimeout(resolve, options.delayMs);
					signal?.addEventListener("abort", () => {
						clearTimeout(timer);
						reject(Object.assign(new Error("aborted"), { name: "AbortError" }));
					});
				});
			}
			options.log?.push(`end ${args.text}`);
			return { content: [{ type: "text", text: `echo: ${args.text}` }] };
		},
	};
}

const writeSchema = Type.Object({ path: Type.String(), content: Type.String() });
/** Writes a real file under `dir`. */
function writeTool(dir: string): AgentTool<typeof writeSchema> {
	return {
		name: "write_file",
		description: "Writes a file.",
		parameters: writeSchema,
		executionMode: "sequential",
		async execute(_id, args) {
			const { writeFile } = await import("node:fs/promises");
			await writeFile(join(dir, args.path), args.content);
			return { content: [{ type: "text", text: `wrote ${args.path}` }] };
		},
	};
}

async function run(
	prompt: string,
	options: { tools?: AnyAgentTool[]; config?: Partial<AgentLoopConfig>; signal?: AbortSignal; messages?: Message[] },
	fake: ReturnType<typeof createFakeModelStream>,
) {
	const events: AgentEvent[] = [];
	const stream = agentLoop(
		[createUserMessage(prompt)],
		{ systemPrompt: "sys", messages: options.messages ?? [], tools: options.tools ?? [] },
		{ model: fakeModel, streamFn: fake.streamFn, ...options.config },
		options.signal,
	);
	for await (const event of stream) events.push(event);
	const messages = await stream.result();
	return { events, messages, end: events.at(-1) };
}

/** Every tool call in the transcript is answered by exactly one result. */
function expectEveryCallAnswered(messages: Message[]) {
	const calls = messages.flatMap((message) => (message.role === "assistant" ? toolCallsOf(message) : []));
	const results = messages.filter((message): message is ToolResultMessage => message.role === "toolResult");
	expect(results.map((result) => result.toolCallId).sort()).toEqual(calls.map((call) => call.id).sort());
}

describe("agentLoop", () => {
	const tempDir = useTempDir();

	it("streams a text reply with events in order and returns the new messages", async () => {
		const fake = createFakeModelStream([textReply("Hello there, how can I help?")]);
		const { events, messages, end } = await run("hi", {}, fake);
		const types = events.map((event) => event.type);
		expect(types[0]).toBe("agent_start");
		expect(types.slice(1, 4)).toEqual(["message_start", "message_end", "turn_start"]);
		expect(types.filter((type) => type === "message_update").length).toBeGreaterThan(2);
		expect(types.slice(-2)).toEqual(["turn_end", "agent_end"]);
		expect(end).toMatchObject({ type: "agent_end", reason: "stop" });
		expect(messages.map((message) => message.role)).toEqual(["user", "assistant"]);
		expect(messages[1]).toMatchObject({ content: [{ type: "text", text: "Hello there, how can I help?" }] });
		expect(fake.requests[0]?.context.systemPrompt).toBe("sys");
	});

	it("runs tool calls with real effects and sends the results back", async () => {
		const fake = createFakeModelStream([
			toolCallReply([{ name: "write_file", arguments: { path: "a.txt", content: "alpha" } }], "Writing."),
			textReply("Done."),
		]);
		const { events, messages, end } = await run("write a.txt", { tools: [writeTool(tempDir())] }, fake);
		expect(await readFile(join(tempDir(), "a.txt"), "utf8")).toBe("alpha");
		expect(end).toMatchObject({ reason: "stop" });
		expect(messages.map((message) => message.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
		const secondRequest = fake.requests[1]?.context.messages ?? [];
		expect(secondRequest.at(-1)).toMatchObject({
			role: "toolResult",
			isError: false,
			content: [{ text: "wrote a.txt" }],
		});
		expect(events.filter((event) => event.type === "tool_execution_end")).toHaveLength(1);
		expect(fake.requests[0]?.context.tools?.map((tool) => tool.name)).toEqual(["write_file"]);
		const turnEnds = events.filter((event) => event.type === "turn_end");
		expect(turnEnds).toHaveLength(2);
		expect(turnEnds[0]).toMatchObject({ turn: 1, toolResults: [{ toolName: "write_file" }] });
	});

	it("runs parallel tool calls concurrently and keeps results in call order", async () => {
		const log: string[] = [];
		const fake = createFakeModelStream([
			toolCallReply([
				{ name: "echo", arguments: { text: "one" } },
				{ name: "echo", arguments: { text: "two" } },
			]),
			textReply("ok"),
		]);
		const started = Date.now();
		const { messages } = await run("go", { tools: [echoTool({ delayMs: 300, log })] }, fake);
		expect(Date.now() - started).toBeLessThan(1500);
		expect(log.slice(0, 2)).toEqual(["start one", "start two"]);
		const results = messages.filter((message) => message.role === "toolResult");
		expect(results.map((result) => result.content)).toEqual([
			[{ type: "text", text: "echo: one" }],
			[{ type: "text", text: "echo: two" }],
		]);
	});

	it("does not execute tool calls of a reply cut off by the length limit, and tells the model", async () => {
		const log: string[] = [];
		const fake = createFakeModelStream([
			{ toolCalls: [{ name: "echo", arguments: '{"text": "cut o' }], stopReason: "length" },
			textReply("Sorry, retrying later."),
		]);
		const { messages, end } = await run("go", { tools: [echoTool({ log })] }, fake);
		expect(log).toEqual([]);
		expect(end).toMatchObject({ reason: "stop" });
		const result = messages.find((message) => message.role === "toolResult");
		expect(result).toMatchObject({ isError: true, content: [{ text: TRUNCATED_TOOL_CALL_TEXT }] });
		expect(fake.requests).toHaveLength(2);
		expectEveryCallAnswered(messages);
	});

	it("turns malformed tool-call JSON into an error result, not a crash", async () => {
		const fake = createFakeModelStream([
			// Cut off inside a string, so not repaired.
			toolCallReply([{ name: "echo", arguments: '{"text": "oops' }]),
			textReply("I see, bad JSON."),
		]);
		const { messages, end } = await run("go", { tools: [echoTool()] }, fake);
		expect(end).toMatchObject({ reason: "stop" });
		const result = messages.find((message) => message.role === "toolResult");
		expect(result?.isError).toBe(true);
		expectEveryCallAnswered(messages);
	});

	it("ends with reason error on an error reply and answers its partial tool calls", async () => {
		const fake = createFakeModelStream([
			{ toolCalls: [{ name: "echo", arguments: { text: "x" } }], stopReason: "error", errorMessage: "boom 500" },
		]);
		const { messages, end } = await run("go", { tools: [echoTool()] }, fake);
		expect(end).toMatchObject({ reason: "error", errorMessage: "boom 500" });
		expect(messages.at(-1)).toMatchObject({ role: "toolResult", isError: true });
		expectEveryCallAnswered(messages);
	});

	it("always ends when the provider throws mid-stream, keeping what streamed", async () => {
		const fake = createFakeModelStream([
			{
				text: "partial",
				toolCalls: [{ name: "echo", arguments: { text: "x" } }],
				throwError: new Error("socket hang up"),
			},
		]);
		const { messages, end } = await run("go", { tools: [echoTool()] }, fake);
		expect(end).toMatchObject({ reason: "error", errorMessage: "socket hang up" });
		expect(messages[1]).toMatchObject({ role: "assistant", stopReason: "error", content: [{ text: "partial" }, {}] });
		expectEveryCallAnswered(messages);
	});

	it("ends when a provider returns no final message or throws synchronously", async () => {
		const empty = await run("go", {}, { streamFn: async function* () {}, requests: [], push() {} });
		expect(empty.end).toMatchObject({
			reason: "error",
			errorMessage: expect.stringContaining("without a final message"),
		});
		const throwing = await run(
			"go",
			{},
			{
				streamFn: () => {
					throw new Error("not even a stream");
				},
				requests: [],
				push() {},
			},
		);
		expect(throwing.end).toMatchObject({ reason: "error", errorMessage: "not even a stream" });
	});

	it("is told an error by a failing model and stops (error reply helper)", async () => {
		const fake = createFakeModelStream([errorReply("rate limited")]);
		const { end, messages } = await run("go", {}, fake);
		expect(end).toMatchObject({ reason: "error", errorMessage: "rate limited" });
		expect(messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "error" });
	});

	it("aborts a streaming reply and starts no new turn", async () => {
		const fake = createFakeModelStream([{ text: "thinking about it", hangUntilAborted: true }, textReply("never")]);
		const controller = new AbortController();
		setTimeout(() => controller.abort(), 100);
		const { end, messages } = await run("go", { signal: controller.signal }, fake);
		expect(end).toMatchObject({ reason: "aborted" });
		expect(fake.requests).toHaveLength(1);
		expect(messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "aborted" });
	});

	it("aborts a running tool batch: the call gets a result and no model turn follows", async () => {
		const fake = createFakeModelStream([
			toolCallReply([
				{ name: "echo", arguments: { text: "slow" } },
				{ name: "echo", arguments: { text: "slow too" } },
			]),
			textReply("never"),
		]);
		const controller = new AbortController();
		setTimeout(() => controller.abort(), 150);
		const started = Date.now();
		const { end, messages } = await run(
			"go",
			{ tools: [echoTool({ delayMs: 10_000 })], signal: controller.signal },
			fake,
		);
		expect(Date.now() - started).toBeLessThan(3000);
		expect(end).toMatchObject({ reason: "aborted" });
		expect(fake.requests).toHaveLength(1);
		expectEveryCallAnswered(messages);
		expect(messages.filter((message) => message.role === "toolResult").every((result) => result.isError)).toBe(true);
	});

	it("checks the abort before the first request", async () => {
		const fake = createFakeModelStream([textReply("never")]);
		const controller = new AbortController();
		controller.abort();
		const { end } = await run("go", { signal: controller.signal }, fake);
		expect(end).toMatchObject({ reason: "aborted" });
		expect(fake.requests).toHaveLength(0);
	});

	it("ends within the grace period when a provider ignores the abort signal", async () => {
		const ignoring = () => ({
			[Symbol.asyncIterator]: () => ({
				next: () => sleep(30_000).then(() => ({ done: true as const, value: undefined })),
			}),
		});
		const controller = new AbortController();
		setTimeout(() => controller.abort(), 50);
		const started = Date.now();
		const { end } = await run(
			"go",
			{ signal: controller.signal, config: { abortGraceMs: 100 } },
			{ streamFn: ignoring, requests: [], push() {} },
		);
		expect(Date.now() - started).toBeLessThan(2000);
		expect(end).toMatchObject({ reason: "aborted" });
	});

	it("stops after the batch when a tool result asks to terminate", async () => {
		const stopper: AnyAgentTool = {
			name: "finish",
			description: "Ends the run.",
			parameters: Type.Object({}),
			execute: async () => ({ content: [{ type: "text", text: "finished" }], terminate: true }),
		};
		const fake = createFakeModelStream([toolCallReply([{ name: "finish", arguments: {} }]), textReply("never")]);
		const { end } = await run("go", { tools: [stopper] }, fake);
		expect(end).toMatchObject({ reason: "terminated" });
		expect(fake.requests).toHaveLength(1);
	});

	it("passes hooks to the engine: a block and a patch reach the model", async () => {
		const fake = createFakeModelStream([
			toolCallReply([
				{ name: "echo", arguments: { text: "blocked" } },
				{ name: "echo", arguments: { text: "patched" } },
			]),
			textReply("ok"),
		]);
		const { messages } = await run(
			"go",
			{
				tools: [echoTool()],
				config: {
					beforeToolCall: ({ args }) =>
						args.text === "blocked" ? { block: true, reason: "Not allowed here." } : undefined,
					afterToolCall: () => ({ content: [{ type: "text", text: "patched by hook" }] }),
				},
			},
			fake,
		);
		const results = messages.filter((message) => message.role === "toolResult");
		// A blocked call never ran, so afterToolCall does not see it.
		expect(results[0]).toMatchObject({ isError: true, content: [{ text: "Not allowed here." }] });
		expect(results[1]).toMatchObject({ isError: false, content: [{ text: "patched by hook" }] });
	});

	it("survives throwing hooks and a throwing shouldStopAfterTurn: every call answered, the stream ends", async () => {
		const fake = createFakeModelStream([
			toolCallReply([
				{ name: "echo", arguments: { text: "a" } },
				{ name: "echo", arguments: { text: "b" } },
			]),
			textReply("never reached"),
		]);
		const { messages, end } = await run(
			"go",
			{
				tools: [echoTool()],
				config: {
					beforeToolCall: ({ args }) => {
						if (args.text === "a") throw new Error("policy engine down");
						return undefined;
					},
					afterToolCall: () => {
						throw new Error("audit log full");
					},
					shouldStopAfterTurn: () => {
						throw new Error("callback bug");
					},
				},
			},
			fake,
		);
		const results = messages.filter((message) => message.role === "toolResult");
		expect(results.map((result) => result.isError)).toEqual([true, true]);
		expect(JSON.stringify(results)).toContain("policy engine down");
		expect(JSON.stringify(results)).toContain("audit log full");
		expect(end).toMatchObject({
			type: "agent_end",
			reason: "error",
			errorMessage: expect.stringContaining("callback bug"),
		});
		expectEveryCallAnswered(messages);
	});

	it("applies transformContext to the request only and passes getApiKey's key", async () => {
		const fake = createFakeModelStream([textReply("ok")]);
		const { messages } = await run(
			"original",
			{
				messages: [createUserMessage("old"), { ...createUserMessage("older") }],
				config: {
					transformContext: (list) => list.slice(-1),
					getApiKey: (provider) => `key-for-${provider}`,
				},
			},
			fake,
		);
		expect(fake.requests[0]?.context.messages).toHaveLength(1);
		expect(fake.requests[0]?.context.messages[0]).toMatchObject({ content: "original" });
		expect(fake.requests[0]?.options.apiKey).toBe("key-for-fake");
		expect(messages).toHaveLength(2);
	});

	it("ends with an error when transformContext throws", async () => {
		const fake = createFakeModelStream([textReply("never")]);
		const { end } = await run(
			"go",
			{
				config: {
					transformContext: () => {
						throw new Error("compaction failed");
					},
				},
			},
			fake,
		);
		expect(end).toMatchObject({ reason: "error", errorMessage: "compaction failed" });
		expect(fake.requests).toHaveLength(0);
	});

	it("stops when shouldStopAfterTurn says so, and at maxTurns", async () => {
		const loopForever = toolCallReply([{ name: "echo", arguments: { text: "again" } }]);
		const stopFake = createFakeModelStream([loopForever], { whenExhausted: "repeatLast" });
		const stopped = await run(
			"go",
			{ tools: [echoTool()], config: { shouldStopAfterTurn: ({ turn }) => turn === 2 } },
			stopFake,
		);
		expect(stopped.end).toMatchObject({ reason: "stoppedAfterTurn" });
		expect(stopFake.requests).toHaveLength(2);

		const boundFake = createFakeModelStream([loopForever], { whenExhausted: "repeatLast" });
		const bounded = await run("go", { tools: [echoTool()], config: { maxTurns: 3 } }, boundFake);
		expect(bounded.end).toMatchObject({ reason: "maxTurns" });
		expect(boundFake.requests).toHaveLength(3);
		expectEveryCallAnswered(bounded.messages);
	});

	it("continues with follow-up messages and injects steering after the batch", async () => {
		let steered = false;
		const fake = createFakeModelStream([
			toolCallReply([{ name: "echo", arguments: { text: "a" } }]),
			textReply("first answer"),
			textReply("second answer"),
		]);
		let followUpGiven = false;
		const { messages } = await run(
			"go",
			{
				tools: [echoTool()],
				config: {
					getSteeringMessages: () => {
						// Deliver once, while the first batch has run.
						if (steered || fake.requests.length !== 1) return [];
						steered = true;
						return [createUserMessage("also do b")];
					},
					getFollowUpMessages: () => {
						if (followUpGiven) return [];
						followUpGiven = true;
						return [createUserMessage("and now c")];
					},
				},
			},
			fake,
		);
		expect(messages.map((message) => message.role)).toEqual([
			"user",
			"assistant",
			"toolResult",
			"user",
			"assistant",
			"user",
			"assistant",
		]);
		expect(messages[3]).toMatchObject({ content: "also do b" });
		expect(messages[5]).toMatchObject({ content: "and now c" });
	});

	it("keeps the stream alive when the consumer ignores it and result() resolves", async () => {
		const fake = createFakeModelStream([textReply("ok")]);
		const stream = agentLoop(
			[createUserMessage("hi")],
			{ messages: [] },
			{ model: fakeModel, streamFn: fake.streamFn },
		);
		const messages = await stream.result();
		expect(messages).toHaveLength(2);
	});
});
