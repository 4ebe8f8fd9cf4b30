import { Type } from "typebox";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createUserMessage } from "../../src/agent/messages.js";
import { toAnthropicMessages } from "../../src/agent/providers/anthropic-messages.js";
import { streamOpenAICompletions, toOpenAIMessages } from "../../src/agent/providers/openai-completions.js";
import type { AssistantMessage, AssistantMessageEvent, Message, Model, ModelContext } from "../../src/agent/types.js";
import { openAIStream, type SseServer, startSseServer } from "../helpers/sse-server.js";
import { collect, fastRetry } from "./provider-stream.js";

const readTool = {
	name: "read",
	description: "Reads a file.",
	parameters: Type.Object({ path: Type.String(), limit: Type.Optional(Type.Number()) }),
};

describe("streamOpenAICompletions against a real SSE server", () => {
	let server: SseServer;
	let model: Model;
	beforeEach(async () => {
		server = await startSseServer();
		model = { provider: "openai", id: "gpt-test", baseUrl: server.openaiBaseUrl };
	});
	afterEach(async () => {
		await server.close();
	});

	const context = (messages: Message[] = [createUserMessage("hi")]): ModelContext => ({
		systemPrompt: "You are terse.",
		messages,
		tools: [readTool],
	});

	it("streams text deltas, usage and the stop reason, sending a well-formed request", async () => {
		server.push({
			events: openAIStream([
				{ text: "Hel" },
				{ text: "lo!" },
				{ finish: "stop" },
				{ usage: { prompt_tokens: 120, completion_tokens: 7, cached_tokens: 100 } },
			]),
		});
		const { events, final } = await collect(
			streamOpenAICompletions(model, context(), { apiKey: "sk-test", maxTokens: 500, retry: fastRetry }),
		);
		expect(final.stopReason).toBe("stop");
		expect(final.content).toEqual([{ type: "text", text: "Hello!" }]);
		expect(final.usage).toEqual({
			inputTokens: 20,
			outputTokens: 7,
			cacheReadTokens: 100,
			cacheWriteTokens: 0,
			totalTokens: 127,
		});
		expect(
			events.filter((event) => event.type === "text_delta").map((event) => "delta" in event && event.delta),
		).toEqual(["Hel", "lo!"]);
		const request = server.requests[0]!;
		expect(request.path).toBe("/v1/chat/completions");
		expect(request.headers.authorization).toBe("Bearer sk-test");
		expect(request.body).toMatchObject({
			model: "gpt-test",
			stream: true,
			stream_options: { include_usage: true },
			max_tokens: 500,
			messages: [
				{ role: "system", content: "You are terse." },
				{ role: "user", content: "hi" },
			],
			tools: [
				{ type: "function", function: { name: "read", description: "Reads a file.", parameters: { type: "object" } } },
			],
		});
	});

	it("turns reasoning_content and reasoning deltas into a thinking block before the text", async () => {
		server.push({
			events: openAIStream([
				{ reasoning: "Let me ", field: "reasoning_content" },
				{ reasoning: "think.", field: "reasoning" },
				{ text: "Answer." },
				{ finish: "stop" },
			]),
		});
		const { final } = await collect(streamOpenAICompletions(model, context(), { apiKey: "k" }));
		expect(final.content).toEqual([
			{ type: "thinking", thinking: "Let me think." },
			{ type: "text", text: "Answer." },
		]);
	});

	it("moves a leading <think> section of the content into a thinking block (local reasoning models)", async () => {
		server.push({
			events: openAIStream([
				{ text: "<think>\nSmall " },
				{ text: "model thoughts</thi" },
				{ text: "nk>\n\nHi!" },
				{ finish: "stop" },
			]),
		});
		const { final } = await collect(streamOpenAICompletions(model, context(), { apiKey: "k" }));
		expect(final.content).toEqual([
			{ type: "thinking", thinking: "\nSmall model thoughts" },
			{ type: "text", text: "Hi!" },
		]);
	});

	it("assembles parallel tool calls from split argument chunks, with partial parses on the way", async () => {
		server.push({
			events: openAIStream([
				{ text: "Reading both." },
				{ toolCall: { index: 0, id: "call_a", name: "read", arguments: "" } },
				{ toolCall: { index: 0, arguments: '{"pa' } },
				{ toolCall: { index: 0, arguments: 'th": "src/a.t' } },
				{ toolCall: { index: 1, id: "call_b", name: "read", arguments: '{"path": "b.ts",' } },
				{ toolCall: { index: 0, arguments: 's"}' } },
				{ toolCall: { index: 1, arguments: ' "limit": 5}' } },
				{ finish: "tool_calls" },
			]),
		});
		const { snapshots, final } = await collect(streamOpenAICompletions(model, context(), { apiKey: "k" }));
		expect(final.stopReason).toBe("toolUse");
		expect(final.content).toEqual([
			{ type: "text", text: "Reading both." },
			{ type: "toolCall", id: "call_a", name: "read", arguments: { path: "src/a.ts" } },
			{ type: "toolCall", id: "call_b", name: "read", arguments: { path: "b.ts", limit: 5 } },
		]);
		expect(snapshots.some((text) => text.includes('"arguments":{"path":"src/a.t"}'))).toBe(true);
	});

	it("keeps malformed final arguments as the raw string so the engine can report them", async () => {
		server.push({
			events: openAIStream([
				{ toolCall: { index: 0, id: "call_x", name: "read", arguments: '{"path": src}' } },
				{ finish: "tool_calls" },
			]),
		});
		const { final } = await collect(streamOpenAICompletions(model, context(), { apiKey: "k" }));
		expect(final.content[0]).toMatchObject({ type: "toolCall", arguments: '{"path": src}' });
	});

	it("reports an error sent mid-stream, keeping the text, without retrying", async () => {
		server.push({
			events: openAIStream(
				[{ text: "Partial answer" }, { error: { message: "upstream model crashed", type: "server_error" } }],
				{
					done: false,
				},
			),
		});
		const { final } = await collect(streamOpenAICompletions(model, context(), { apiKey: "k", retry: fastRetry }));
		expect(final.stopReason).toBe("error");
		expect(final.errorMessage).toContain("upstream model crashed");
		expect(final.content).toEqual([{ type: "text", text: "Partial answer" }]);
		expect(server.requests).toHaveLength(1);
	});

	it("retries a 429 and then succeeds, quickly with a short backoff", async () => {
		server.push(
			{ status: 429, json: { error: { message: "Rate limit reached", type: "rate_limit_error" } } },
			{ events: openAIStream([{ text: "ok" }, { finish: "stop" }]) },
		);
		const started = Date.now();
		const { final } = await collect(streamOpenAICompletions(model, context(), { apiKey: "k", retry: fastRetry }));
		expect(Date.now() - started).toBeLessThan(2000);
		expect(final.stopReason).toBe("stop");
		expect(final.content).toEqual([{ type: "text", text: "ok" }]);
		expect(server.requests).toHaveLength(2);
	});

	it("retries when the connection is cut before any content arrived", async () => {
		server.push({ events: [], destroy: true }, { events: openAIStream([{ text: "second try" }, { finish: "stop" }]) });
		const { final } = await collect(streamOpenAICompletions(model, context(), { apiKey: "k", retry: fastRetry }));
		expect(final.content).toEqual([{ type: "text", text: "second try" }]);
		expect(server.requests).toHaveLength(2);
	});

	it("gives up a stream that goes silent after the headers: retried before content, an error after", async () => {
		// The SDK's own timeout ends with the headers; without an idle limit these would hang forever.
		server.push(
			{ events: [], hang: true },
			{ events: openAIStream([{ text: "half an answ" }], { done: false }), hang: true },
		);
		const started = Date.now();
		const { final } = await collect(
			streamOpenAICompletions(model, context(), { apiKey: "k", retry: fastRetry, idleTimeoutMs: 300 }),
		);
		expect(Date.now() - started).toBeLessThan(5000);
		expect(server.requests).toHaveLength(2);
		expect(final.stopReason).toBe("error");
		expect(final.errorMessage).toBe("The model's stream stalled: no data for 0.3 s. (after 1 retry)");
		expect(final.content).toEqual([{ type: "text", text: "half an answ" }]);
	});

	it("stops a reply that streams without end at maxReplyCharacters, keeping what came, without retrying", async () => {
		// Before the bound the message grew until the process ran out of memory: the stream never ended.
		const [delta] = openAIStream([{ text: "x".repeat(10_000) }], { done: false }).slice(1);
		server.push({ events: openAIStream([{ text: "start " }], { done: false }), endless: delta });
		const { final } = await collect(
			streamOpenAICompletions(model, context(), { apiKey: "k", retry: fastRetry, maxReplyCharacters: 1_000_000 }),
		);
		expect(server.requests).toHaveLength(1);
		expect(final.stopReason).toBe("error");
		expect(final.errorMessage).toMatch(/^The model's reply passed 1,000,000 characters .* stopped there/);
		const text = final.content[0]?.type === "text" ? final.content[0].text : "";
		expect(text.startsWith("start x")).toBe(true);
		expect(text.length).toBeGreaterThan(1_000_000);
		expect(text.length).toBeLessThanOrEqual(1_000_000 + 10_000);
	}, 60_000);

	it("honours retry-after-ms but caps it at maxDelayMs", async () => {
		server.push(
			{ status: 503, headers: { "retry-after-ms": "60000" }, json: { error: { message: "busy" } } },
			{ events: openAIStream([{ text: "ok" }, { finish: "stop" }]) },
		);
		const started = Date.now();
		const { final } = await collect(streamOpenAICompletions(model, context(), { apiKey: "k", retry: fastRetry }));
		expect(Date.now() - started).toBeLessThan(2000);
		expect(final.stopReason).toBe("stop");
	});

	it("gives up after maxRetries with a readable message", async () => {
		for (let index = 0; index < 3; index++) {
			server.push({ status: 500, json: { error: { message: "Internal failure", type: "server_error" } } });
		}
		const { final } = await collect(streamOpenAICompletions(model, context(), { apiKey: "k", retry: fastRetry }));
		expect(server.requests).toHaveLength(3);
		expect(final.stopReason).toBe("error");
		expect(final.errorMessage).toBe(
			"OpenAI-compatible API request failed (HTTP 500): Internal failure (after 2 retries)",
		);
	});

	it("does not retry a 401 and names the key variable", async () => {
		server.push({
			status: 401,
			json: { error: { message: "Incorrect API key provided", type: "invalid_request_error" } },
		});
		const { final } = await collect(streamOpenAICompletions(model, context(), { apiKey: "bad", retry: fastRetry }));
		expect(server.requests).toHaveLength(1);
		expect(final.errorMessage).toContain("Incorrect API key provided");
		expect(final.errorMessage).toContain("OPENAI_API_KEY");
	});

	it("reports a length stop so the loop does not run truncated calls", async () => {
		server.push({
			events: openAIStream([
				{ toolCall: { index: 0, id: "c1", name: "read", arguments: '{"path": "a' } },
				{ finish: "length" },
			]),
		});
		const { final } = await collect(streamOpenAICompletions(model, context(), { apiKey: "k" }));
		expect(final.stopReason).toBe("length");
	});

	it("ends promptly with stopReason aborted when the signal aborts mid-stream", async () => {
		server.push({ events: openAIStream([{ text: "I am thinking" }], { done: false }), hang: true });
		const controller = new AbortController();
		const started = Date.now();
		const stream = streamOpenAICompletions(model, context(), { apiKey: "k", signal: controller.signal });
		const events: AssistantMessageEvent[] = [];
		for await (const event of stream) {
			events.push(event);
			if (event.type === "text_delta") controller.abort();
		}
		expect(Date.now() - started).toBeLessThan(3000);
		expect(events.at(-1)).toMatchObject({ type: "error", message: { stopReason: "aborted" } });
	});

	it("names OPENAI_API_KEY when no key is set for a remote URL, and needs none for a local one", async () => {
		vi.stubEnv("OPENAI_API_KEY", "");
		try {
			const remote = await collect(
				streamOpenAICompletions(
					{ provider: "openai", id: "gpt-test", baseUrl: "https://api.example.com/v1" },
					context(),
				),
			);
			expect(remote.final.stopReason).toBe("error");
			expect(remote.final.errorMessage).toContain("OPENAI_API_KEY");

			server.push({ events: openAIStream([{ text: "local ok" }, { finish: "stop" }]) });
			const local = await collect(
				streamOpenAICompletions({ provider: "ollama", id: "qwen3", baseUrl: server.openaiBaseUrl }, context()),
			);
			expect(local.final.content).toEqual([{ type: "text", text: "local ok" }]);
		} finally {
			vi.unstubAllEnvs();
		}
	});

	it("says the server is unreachable when nothing listens", async () => {
		const closed = await startSseServer();
		const baseUrl = closed.openaiBaseUrl;
		await closed.close();
		const started = Date.now();
		const { final } = await collect(
			streamOpenAICompletions({ provider: "ollama", id: "m", baseUrl }, context(), {
				retry: { maxRetries: 3, baseDelayMs: 5000 },
			}),
		);
		// A refused connection is not retried: the server is not running, waiting will not help.
		expect(Date.now() - started).toBeLessThan(3000);
		expect(final.stopReason).toBe("error");
		expect(final.errorMessage).toContain(`Could not reach OpenAI-compatible API at ${baseUrl}`);
	});
});

describe("toOpenAIMessages", () => {
	it("sends tool results as tool messages and their images in a following user message", () => {
		const messages = toOpenAIMessages({
			messages: [
				createUserMessage("look"),
				{
					role: "assistant",
					content: [
						{ type: "thinking", thinking: "hmm" },
						{ type: "text", text: "Reading." },
						{ type: "toolCall", id: "c1", name: "read", arguments: { path: "a.png" } },
						{ type: "toolCall", id: "c2", name: "read", arguments: { path: "b.txt" } },
					],
					provider: "openai",
					model: "m",
					usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, totalTokens: 0 },
					stopReason: "toolUse",
					timestamp: 0,
				},
				{
					role: "toolResult",
					toolCallId: "c1",
					toolName: "read",
					content: [
						{ type: "text", text: "Image a.png" },
						{ type: "image", data: "AAAA", mimeType: "image/png" },
					],
					isError: false,
					timestamp: 0,
				},
			],
		});
		expect(messages).toEqual([
			{ role: "user", content: "look" },
			{
				role: "assistant",
				content: "Reading.",
				tool_calls: [
					{ id: "c1", type: "function", function: { name: "read", arguments: '{"path":"a.png"}' } },
					{ id: "c2", type: "function", function: { name: "read", arguments: '{"path":"b.txt"}' } },
				],
			},
			{ role: "tool", tool_call_id: "c1", content: "Image a.png\n(1 image(s) attached in the next message)" },
			// The missing result of c2 is synthesized, so the API accepts the transcript.
			{ role: "tool", tool_call_id: "c2", content: expect.stringContaining("No result was recorded") },
			{
				role: "user",
				content: [
					{ type: "text", text: "Images returned by the tool calls above:" },
					{ type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
				],
			},
		]);
	});

	it("sends malformed tool-call arguments as {} so template-rendering servers accept the history", () => {
		const messages = toOpenAIMessages({
			messages: [
				{
					role: "assistant",
					content: [
						{ type: "toolCall", id: "c1", name: "read", arguments: '{"path": x' as unknown as Record<string, unknown> },
					],
					provider: "openai",
					model: "m",
					usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, totalTokens: 0 },
					stopReason: "toolUse",
					timestamp: 0,
				},
			],
		});
		expect(messages[0]).toMatchObject({ tool_calls: [{ function: { arguments: "{}" } }] });
	});

	it("names a tool call cut off before its name streamed, so the API accepts the history", () => {
		// The first chunk of a call may carry only its id; Ctrl-C can land before the name.
		const final: AssistantMessage = {
			role: "assistant",
			content: [{ type: "toolCall", id: "c1", name: "", arguments: {} }],
			provider: "openai",
			model: "m",
			usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, totalTokens: 0 },
			stopReason: "aborted",
			timestamp: 0,
		};
		const messages = toOpenAIMessages({ messages: [createUserMessage("hi"), final] });
		expect(messages[1]).toMatchObject({ tool_calls: [{ id: "c1", function: { name: "unnamed_tool" } }] });
		expect(toAnthropicMessages([final])[0]?.content).toMatchObject([{ type: "tool_use", name: "unnamed_tool" }]);
	});
});
