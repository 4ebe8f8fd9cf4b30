import { Type } from "typebox";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createUserMessage, emptyUsage } from "../../src/agent/messages.js";
import { streamAnthropicMessages, toAnthropicMessages } from "../../src/agent/providers/anthropic-messages.js";
import type { AssistantMessage, AssistantMessageEvent, Model, ModelContext } from "../../src/agent/types.js";
import { anthropicStream, type SseServer, startSseServer } from "../helpers/sse-server.js";
import { collect, fastRetry } from "./provider-stream.js";

const editTool = {
	name: "edit",
	description: "Edits a file.",
	parameters: Type.Object({ path: Type.String(), old_string: Type.String(), new_string: Type.String() }),
};

function assistant(content: AssistantMessage["content"], stopReason: AssistantMessage["stopReason"] = "toolUse") {
	return {
		role: "assistant" as const,
		content,
		provider: "anthropic",
		model: "claude-test",
		usage: emptyUsage(),
		stopReason,
		timestamp: 0,
	};
}

describe("streamAnthropicMessages against a real SSE server", () => {
	let server: SseServer;
	let model: Model;
	beforeEach(async () => {
		server = await startSseServer();
		model = { provider: "anthropic", id: "claude-test", baseUrl: server.url };
	});
	afterEach(async () => {
		await server.close();
	});

	const context = (): ModelContext => ({
		systemPrompt: "Be brief.",
		messages: [createUserMessage("hi")],
		tools: [editTool],
	});

	it("streams thinking with its signature, text, usage, and sends a well-formed request", async () => {
		server.push({
			events: anthropicStream(
				[
					{ thinking: ["The user ", "greets me."], signature: "sig-123" },
					{ text: ["Hi", " there."] },
					{ stop: "end_turn", outputTokens: 30 },
				],
				{ inputTokens: 12, cacheReadTokens: 300 },
			),
		});
		const { final } = await collect(
			streamAnthropicMessages(model, context(), {
				apiKey: "sk-ant-test",
				thinkingBudgetTokens: 2048,
				retry: fastRetry,
			}),
		);
		expect(final.stopReason).toBe("stop");
		expect(final.content).toEqual([
			{ type: "thinking", thinking: "The user greets me.", signature: "sig-123" },
			{ type: "text", text: "Hi there." },
		]);
		expect(final.usage).toEqual({
			inputTokens: 12,
			outputTokens: 30,
			cacheReadTokens: 300,
			cacheWriteTokens: 0,
			totalTokens: 342,
		});
		const request = server.requests[0]!;
		expect(request.path).toBe("/v1/messages");
		expect(request.headers["x-api-key"] ?? request.headers.authorization).toContain("sk-ant-test");
		expect(request.headers["anthropic-version"]).toBeTruthy();
		expect(request.body).toMatchObject({
			model: "claude-test",
			stream: true,
			system: [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }],
			thinking: { type: "enabled", budget_tokens: 2048 },
			messages: [{ role: "user", content: [{ type: "text", text: "hi", cache_control: { type: "ephemeral" } }] }],
			tools: [{ name: "edit", description: "Edits a file.", input_schema: { type: "object" } }],
		});
		expect(request.body.max_tokens).toBeGreaterThan(2048);
	});

	it("assembles parallel tool_use blocks from split JSON chunks", async () => {
		server.push({
			events: anthropicStream([
				{ text: ["Editing two files."] },
				{
					toolUse: {
						id: "toolu_1",
						name: "edit",
						json: ['{"path": "a.ts", "old_', 'string": "x", "new_string', '": "y"}'],
					},
				},
				{
					toolUse: {
						id: "toolu_2",
						name: "edit",
						json: ['{"path": "b.ts",', ' "old_string": "1", "new_string": "2"}'],
					},
				},
				{ stop: "tool_use" },
			]),
		});
		const { snapshots, final } = await collect(streamAnthropicMessages(model, context(), { apiKey: "k" }));
		expect(final.stopReason).toBe("toolUse");
		expect(final.content).toEqual([
			{ type: "text", text: "Editing two files." },
			{ type: "toolCall", id: "toolu_1", name: "edit", arguments: { path: "a.ts", old_string: "x", new_string: "y" } },
			{ type: "toolCall", id: "toolu_2", name: "edit", arguments: { path: "b.ts", old_string: "1", new_string: "2" } },
		]);
		expect(snapshots.some((text) => text.includes('"arguments":{"path":"a.ts"}'))).toBe(true);
	});

	it("reports an error event mid-stream, keeping the streamed text, without retrying", async () => {
		server.push({
			events: anthropicStream(
				[{ text: ["Half an ans"] }, { error: { type: "overloaded_error", message: "Overloaded" } }],
				{
					stopEvent: false,
				},
			),
		});
		const { final } = await collect(streamAnthropicMessages(model, context(), { apiKey: "k", retry: fastRetry }));
		expect(final.stopReason).toBe("error");
		expect(final.errorMessage).toContain("Overloaded");
		expect(final.content).toEqual([{ type: "text", text: "Half an ans" }]);
		expect(server.requests).toHaveLength(1);
	});

	it("retries an overloaded error that arrives before any content", async () => {
		server.push(
			{
				events: anthropicStream([{ error: { type: "overloaded_error", message: "Overloaded" } }], { stopEvent: false }),
			},
			{ events: anthropicStream([{ text: ["Fine now."] }, { stop: "end_turn" }]) },
		);
		const { final } = await collect(streamAnthropicMessages(model, context(), { apiKey: "k", retry: fastRetry }));
		expect(final.stopReason).toBe("stop");
		expect(final.content).toEqual([{ type: "text", text: "Fine now." }]);
		expect(server.requests).toHaveLength(2);
	});

	it("retries a 429 and a 529 and then succeeds, quickly", async () => {
		server.push(
			{ status: 429, json: { type: "error", error: { type: "rate_limit_error", message: "Rate limited" } } },
			{ status: 529, json: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } },
			{ events: anthropicStream([{ text: ["ok"] }, { stop: "end_turn" }]) },
		);
		const started = Date.now();
		const { final } = await collect(streamAnthropicMessages(model, context(), { apiKey: "k", retry: fastRetry }));
		expect(Date.now() - started).toBeLessThan(2000);
		expect(final.content).toEqual([{ type: "text", text: "ok" }]);
		expect(server.requests).toHaveLength(3);
	});

	it("reports a 400 at once with the API's explanation", async () => {
		server.push({
			status: 400,
			json: {
				type: "error",
				error: { type: "invalid_request_error", message: "messages: tool_use ids must be unique" },
			},
		});
		const { final } = await collect(streamAnthropicMessages(model, context(), { apiKey: "k", retry: fastRetry }));
		expect(server.requests).toHaveLength(1);
		expect(final.errorMessage).toBe("Anthropic API request failed (HTTP 400): messages: tool_use ids must be unique");
	});

	it("maps max_tokens to length", async () => {
		server.push({
			events: anthropicStream([{ toolUse: { id: "t1", name: "edit", json: ['{"path": "a'] } }, { stop: "max_tokens" }]),
		});
		const { final } = await collect(streamAnthropicMessages(model, context(), { apiKey: "k" }));
		expect(final.stopReason).toBe("length");
	});

	it("names ANTHROPIC_API_KEY when no key is set", async () => {
		vi.stubEnv("ANTHROPIC_API_KEY", "");
		try {
			const { final } = await collect(streamAnthropicMessages({ provider: "anthropic", id: "claude-test" }, context()));
			expect(final.stopReason).toBe("error");
			expect(final.errorMessage).toContain("ANTHROPIC_API_KEY");
		} finally {
			vi.unstubAllEnvs();
		}
	});

	it("ends with aborted when the signal aborts mid-stream", async () => {
		server.push({ events: anthropicStream([{ text: ["Working on it"] }], { stopEvent: false }), hang: true });
		const controller = new AbortController();
		const events: AssistantMessageEvent[] = [];
		for await (const event of streamAnthropicMessages(model, context(), { apiKey: "k", signal: controller.signal })) {
			events.push(event);
			if (event.type === "text_delta") controller.abort();
		}
		expect(events.at(-1)).toMatchObject({ type: "error", message: { stopReason: "aborted" } });
	});
});

describe("toAnthropicMessages", () => {
	it("puts tool results with images into one user turn, keeps signed thinking, drops unsigned thinking", () => {
		const turns = toAnthropicMessages([
			createUserMessage("show me"),
			assistant([
				{ type: "thinking", thinking: "signed", signature: "s1" },
				{ type: "thinking", thinking: "redacted", signature: "opaque", redacted: true },
				{ type: "thinking", thinking: "cut off, no signature" },
				{ type: "toolCall", id: "call.1|x", name: "read", arguments: { path: "a.png" } },
				{ type: "toolCall", id: "toolu_2", name: "read", arguments: { path: "b.txt" } },
			]),
			{
				role: "toolResult",
				toolCallId: "call.1|x",
				toolName: "read",
				content: [{ type: "image", data: "AAAA", mimeType: "image/png" }],
				isError: false,
				timestamp: 0,
			},
			{
				role: "toolResult",
				toolCallId: "toolu_2",
				toolName: "read",
				content: [{ type: "text", text: "not found" }],
				isError: true,
				timestamp: 0,
			},
			createUserMessage("and steer"),
		]);
		expect(turns).toEqual([
			{ role: "user", content: [{ type: "text", text: "show me" }] },
			{
				role: "assistant",
				content: [
					{ type: "thinking", thinking: "signed", signature: "s1" },
					{ type: "redacted_thinking", data: "opaque" },
					{ type: "tool_use", id: "call_1_x", name: "read", input: { path: "a.png" } },
					{ type: "tool_use", id: "toolu_2", name: "read", input: { path: "b.txt" } },
				],
			},
			{
				role: "user",
				content: [
					{
						type: "tool_result",
						tool_use_id: "call_1_x",
						content: [{ type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } }],
					},
					{
						type: "tool_result",
						tool_use_id: "toolu_2",
						content: [{ type: "text", text: "not found" }],
						is_error: true,
					},
					{ type: "text", text: "and steer", cache_control: { type: "ephemeral" } },
				],
			},
		]);
	});

	it("answers a tool call that has no result and drops an orphan result", () => {
		const turns = toAnthropicMessages([
			createUserMessage("go"),
			assistant([
				{ type: "toolCall", id: "t1", name: "read", arguments: '{"path": bad' as unknown as Record<string, unknown> },
			]),
			{ role: "toolResult", toolCallId: "orphan", toolName: "x", content: [], isError: false, timestamp: 0 },
		]);
		expect(turns[1]).toEqual({ role: "assistant", content: [{ type: "tool_use", id: "t1", name: "read", input: {} }] });
		expect(turns[2]?.content).toEqual([
			{
				type: "tool_result",
				tool_use_id: "t1",
				content: [{ type: "text", text: expect.stringContaining("No result was recorded") }],
				is_error: true,
				cache_control: { type: "ephemeral" },
			},
		]);
	});
});
