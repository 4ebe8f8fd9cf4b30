import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { createStreamFn } from "../../src/agent/providers/index.js";
import { createTool } from "../../src/tools/index.js";
import { anthropicStream, openAIStream, useSseServer } from "../helpers/sse-server.js";
import { useTempDir } from "../helpers/temp-dir.js";

/**
 * Ctrl-C while the model is still streaming a tool call's arguments leaves a partial call in the
 * transcript. The next request must still be one the API accepts: the call with parseable
 * arguments and a name, followed by exactly one result.
 */
describe("abort while a tool call streams: the next request is valid on the wire", () => {
	const tempDir = useTempDir();
	const server = useSseServer();

	async function abortThenContinue(agent: Agent): Promise<void> {
		const run = agent.prompt("write it");
		// Abort once the server has sent the partial call (the reply then hangs).
		const deadline = Date.now() + 5000;
		while (!agent.state.streamingMessage?.content.some((block) => block.type === "toolCall")) {
			if (Date.now() > deadline) throw new Error("the partial tool call never arrived");
			await new Promise((resolve) => setTimeout(resolve, 10));
		}
		agent.abort();
		await run;
		expect(agent.state.lastEndReason).toBe("aborted");
		await agent.prompt("go on");
		expect(agent.state.lastEndReason).toBe("stop");
	}

	it("OpenAI-compatible: the partial call goes back with JSON arguments and one tool result", async () => {
		server.push(
			{
				events: openAIStream(
					[
						{ text: "Writing." },
						{ toolCall: { index: 0, id: "call_w", name: "write", arguments: '{"path": "a.txt", "content": "par' } },
					],
					{ done: false },
				),
				hang: true,
			},
			{ events: openAIStream([{ text: "OK." }, { finish: "stop" }]) },
		);
		const agent = new Agent({
			model: { provider: "ollama", id: "m", baseUrl: server.openaiBaseUrl },
			streamFn: createStreamFn({ retry: { maxRetries: 0 } }),
			tools: [createTool("write", tempDir())],
		});
		await abortThenContinue(agent);

		const messages = server.requests[1]!.body.messages;
		const assistant = messages.find((message: { role: string }) => message.role === "assistant");
		expect(assistant.tool_calls).toHaveLength(1);
		const [call] = assistant.tool_calls;
		expect(call.function.name).toBe("write");
		expect(() => JSON.parse(call.function.arguments)).not.toThrow();
		const results = messages.filter((message: { role: string }) => message.role === "tool");
		expect(results.map((message: { tool_call_id: string }) => message.tool_call_id)).toEqual([call.id]);
		expect(messages.at(-1)).toMatchObject({ role: "user", content: "go on" });
	});

	it("Anthropic: the partial tool_use is answered by one tool_result in the next user turn", async () => {
		const partial = anthropicStream([
			{ text: ["Writing."] },
			{ toolUse: { id: "toolu_1", name: "write", json: ['{"path": "a.txt", "con'] } },
		]);
		// Cut the stream before the tool_use block stops: drop content_block_stop and message_stop.
		const events = partial.slice(0, partial.length - 2);
		server.push({ events, hang: true }, { events: anthropicStream([{ text: ["OK."] }, { stop: "end_turn" }]) });
		const agent = new Agent({
			model: { provider: "anthropic", id: "m", baseUrl: server.url },
			streamFn: createStreamFn({ retry: { maxRetries: 0 }, apiKey: "test-key" }),
			tools: [createTool("write", tempDir())],
		});
		await abortThenContinue(agent);

		const messages = server.requests[1]!.body.messages;
		expect(messages.map((message: { role: string }) => message.role)).toEqual(["user", "assistant", "user"]);
		const toolUses = messages[1].content.filter((block: { type: string }) => block.type === "tool_use");
		expect(toolUses).toEqual([{ type: "tool_use", id: "toolu_1", name: "write", input: expect.any(Object) }]);
		const results = messages[2].content.filter((block: { type: string }) => block.type === "tool_result");
		expect(results.map((block: { tool_use_id: string }) => block.tool_use_id)).toEqual(["toolu_1"]);
		// The results come first in the turn, as the API requires; the new prompt follows.
		expect(messages[2].content[0].type).toBe("tool_result");
		expect(messages[2].content.at(-1)).toMatchObject({ type: "text", text: "go on" });
	});
});
