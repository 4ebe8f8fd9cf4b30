import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { createStreamFn } from "../../src/agent/providers/index.js";
import type { AgentEvent, ToolResultMessage } from "../../src/agent/types.js";
import { createTool } from "../../src/tools/index.js";
import { anthropicStream, openAIStream, useSseServer } from "../helpers/sse-server.js";
import { useTempDir } from "../helpers/temp-dir.js";

/**
 * The whole path a person's session takes: Agent → real SDK → HTTP on 127.0.0.1 → scripted
 * wire-format replies → real tools on real files → results back to the "model".
 */
describe("Agent with real providers and real tools", () => {
	const tempDir = useTempDir();
	const server = useSseServer();

	it("OpenAI-compatible: writes a file, reads it back, and answers", async () => {
		server.push(
			{
				events: openAIStream([
					{ text: "Creating it." },
					{ toolCall: { index: 0, id: "call_w", name: "write", arguments: '{"path": "notes/todo.md", ' } },
					{ toolCall: { index: 0, arguments: '"content": "- ship it\\n"}' } },
					{ finish: "tool_calls" },
				]),
			},
			{
				events: openAIStream([
					{ toolCall: { index: 0, id: "call_r", name: "read", arguments: '{"path": "notes/todo.md"}' } },
					{ finish: "tool_calls" },
				]),
			},
			{ events: openAIStream([{ text: "The file says: ship it." }, { finish: "stop" }]) },
		);
		const cwd = tempDir();
		const agent = new Agent({
			model: { provider: "ollama", id: "qwen3-coder", baseUrl: server.openaiBaseUrl },
			streamFn: createStreamFn({ retry: { maxRetries: 0 } }),
			tools: [createTool("read", cwd), createTool("write", cwd)],
		});
		const events: AgentEvent[] = [];
		agent.subscribe((event) => events.push(event));
		await agent.prompt("Create notes/todo.md saying ship it, then check it.");

		expect(await readFile(join(cwd, "notes/todo.md"), "utf8")).toBe("- ship it\n");
		expect(agent.state.lastEndReason).toBe("stop");
		expect(server.requests).toHaveLength(3);
		const second = server.requests[1]!.body.messages;
		expect(second.at(-1)).toMatchObject({ role: "tool", tool_call_id: "call_w" });
		const third = server.requests[2]!.body.messages;
		expect(third.at(-1).content).toContain("ship it");
		const ends = events.filter((event) => event.type === "tool_execution_end");
		expect(ends.map((event) => event.type === "tool_execution_end" && event.isError)).toEqual([false, false]);
	});

	it("OpenAI-compatible: an image read by a tool reaches the model as a user image part", async () => {
		const cwd = tempDir();
		const png = await sharp({ create: { width: 4, height: 4, channels: 3, background: "#ff0000" } })
			.png()
			.toBuffer();
		await writeFile(join(cwd, "red.png"), png);
		server.push(
			{
				events: openAIStream([
					{ toolCall: { index: 0, id: "call_img", name: "read", arguments: '{"path": "red.png"}' } },
					{ finish: "tool_calls" },
				]),
			},
			{ events: openAIStream([{ text: "It is red." }, { finish: "stop" }]) },
		);
		const agent = new Agent({
			model: { provider: "openai", id: "gpt-test", baseUrl: server.openaiBaseUrl },
			streamFn: createStreamFn({ apiKey: "sk-test", retry: { maxRetries: 0 } }),
			tools: [createTool("read", cwd)],
		});
		await agent.prompt("What colour is red.png?");
		const result = agent.state.messages.find((message): message is ToolResultMessage => message.role === "toolResult");
		expect(result?.content.some((block) => block.type === "image")).toBe(true);
		const sent = server.requests[1]!.body.messages;
		expect(sent.at(-2)).toMatchObject({ role: "tool", tool_call_id: "call_img" });
		expect(sent.at(-1)).toMatchObject({
			role: "user",
			content: [
				{ type: "text" },
				{ type: "image_url", image_url: { url: expect.stringMatching(/^data:image\/png;base64,/) } },
			],
		});
	});

	it("Anthropic: edits a file through parallel tool calls, with a malformed call answered as an error", async () => {
		const cwd = tempDir();
		await writeFile(join(cwd, "a.txt"), "hello world\n");
		server.push(
			{
				events: anthropicStream([
					{
						toolUse: {
							id: "toolu_edit",
							name: "edit",
							json: ['{"path": "a.txt", "old_string": "world",', ' "new_string": "there"}'],
						},
					},
					{ toolUse: { id: "toolu_bad", name: "read", json: ['{"path": '] } },
					{ stop: "tool_use" },
				]),
			},
			{ events: anthropicStream([{ text: ["Edited."] }, { stop: "end_turn" }]) },
		);
		const agent = new Agent({
			model: { provider: "anthropic", id: "claude-test", baseUrl: server.url },
			streamFn: createStreamFn({ apiKey: "sk-ant-test", retry: { maxRetries: 0 } }),
			tools: [createTool("read", cwd), createTool("edit", cwd)],
		});
		await agent.prompt("Say hello there.");
		expect(await readFile(join(cwd, "a.txt"), "utf8")).toBe("hello there\n");
		const results = agent.state.messages.filter(
			(message): message is ToolResultMessage => message.role === "toolResult",
		);
		expect(results.map((result) => [result.toolCallId, result.isError])).toEqual([
			["toolu_edit", false],
			["toolu_bad", true],
		]);
		const toolResults = server.requests[1]!.body.messages.at(-1).content;
		expect(toolResults.map((block: { type: string; tool_use_id: string }) => [block.type, block.tool_use_id])).toEqual([
			["tool_result", "toolu_edit"],
			["tool_result", "toolu_bad"],
		]);
		expect(agent.state.lastEndReason).toBe("stop");
	});

	it("a 429 during a run is retried transparently", async () => {
		server.push(
			{ status: 429, headers: { "retry-after-ms": "10" }, json: { error: { message: "slow down" } } },
			{ events: openAIStream([{ text: "Hi." }, { finish: "stop" }]) },
		);
		const agent = new Agent({
			model: { provider: "ollama", id: "m", baseUrl: server.openaiBaseUrl },
			streamFn: createStreamFn({ retry: { maxRetries: 2, baseDelayMs: 10 } }),
		});
		await agent.prompt("hi");
		expect(agent.state.lastEndReason).toBe("stop");
		expect(server.requests).toHaveLength(2);
	});
});
