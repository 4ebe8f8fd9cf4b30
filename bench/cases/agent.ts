import { Type } from "typebox";
import { agentLoop } from "../../src/agent/agent-loop.js";
import { createUserMessage } from "../../src/agent/messages.js";
import { ReplyBuilder } from "../../src/agent/providers/reply-builder.js";
import type { AssistantMessageEvent, Model, StreamFn } from "../../src/agent/types.js";
import type { AgentTool } from "../../src/engine/types.js";
import { anthropicStream, openAIStream, startSseServer } from "../../test/helpers/sse-server.js";
import type { BenchCase } from "../types.js";

const model: Model = { provider: "bench", id: "bench" };

/** Streams a write call whose 1 MB `content` arrives in 16-byte argument chunks, as a model sends it. */
function streamLargeToolCall(): boolean {
	const content = "const value = 42; // a line of generated code\n".repeat(22_000);
	const raw = JSON.stringify({ path: "big.ts", content });
	const builder = new ReplyBuilder(model);
	const index = builder.openBlock({ type: "toolCall", id: "c1", name: "write", arguments: {} });
	for (let offset = 0; offset < raw.length; offset += 16) {
		builder.append(index, raw.slice(offset, offset + 16));
		builder.drain();
	}
	builder.finish("toolUse");
	const call = builder.toolCall(index);
	return call?.arguments.content === content;
}

const schema = Type.Object({ value: Type.Number() });
const noop: AgentTool<typeof schema> = {
	name: "noop",
	description: "does nothing",
	parameters: schema,
	execute: async (_id, args) => ({ content: [{ type: "text", text: String(args.value) }] }),
};

/** A scripted model: 200 turns of one tool call each, then a final text reply. */
function scriptedModel(turns: number): StreamFn {
	let request = 0;
	return async function* (): AsyncGenerator<AssistantMessageEvent> {
		request++;
		const builder = new ReplyBuilder(model);
		if (request <= turns) {
			const index = builder.openBlock({ type: "toolCall", id: `c${request}`, name: "noop", arguments: {} });
			builder.append(index, `{"value": ${request}}`);
			builder.finish("toolUse");
		} else {
			builder.append(builder.openBlock({ type: "text", text: "" }), "done");
			builder.finish("stop");
		}
		yield* builder.drain();
	};
}

async function runTurns(turns: number): Promise<boolean> {
	const stream = agentLoop(
		[createUserMessage("go")],
		{ messages: [], tools: [noop] },
		{ model, streamFn: scriptedModel(turns), maxTurns: turns + 1 },
	);
	for await (const _event of stream) {
		// Drain events as a UI would.
	}
	const messages = await stream.result();
	return messages.length === 1 + turns * 2 + 1;
}

const DELTAS = 5000;

/** One reply of `DELTAS` text deltas through the real SDK over loopback HTTP; true when all text arrived. */
async function streamThroughSdk(api: "openai" | "anthropic"): Promise<boolean> {
	const words = Array.from({ length: DELTAS }, (_, index) => `w${index} `);
	const server = await startSseServer([
		{
			events:
				api === "openai"
					? openAIStream([...words.map((text) => ({ text })), { finish: "stop" as const }])
					: anthropicStream([{ text: words }, { stop: "end_turn" }]),
		},
	]);
	try {
		const { createStreamFn } = await import("../../src/agent/providers/index.js");
		const streamFn = createStreamFn({ apiKey: "bench", retry: { maxRetries: 0 } });
		const target: Model =
			api === "openai"
				? { provider: "openai", id: "bench", baseUrl: server.openaiBaseUrl }
				: { provider: "anthropic", id: "bench", baseUrl: server.url };
		let final: string | undefined;
		for await (const event of streamFn(target, { messages: [createUserMessage("go")] })) {
			if (event.type === "done") final = event.message.content[0]?.type === "text" ? event.message.content[0].text : "";
		}
		return final === words.join("");
	} finally {
		await server.close();
	}
}

/** Agent loop and provider-side overhead, without network or model time. */
export const cases: BenchCase[] = [
	{
		group: "agent",
		name: "stream 1 MB tool-call arguments in 16-byte chunks",
		goal: "< 300 ms (linear, not quadratic, partial parsing)",
		maxMs: 300,
		toolbelt: async () => ({ ok: streamLargeToolCall() }),
	},
	{
		group: "agent",
		name: "200 turns with one tool call each",
		goal: "< 1 ms per turn (200 ms total)",
		maxMs: 200,
		toolbelt: async () => ({ ok: await runTurns(200) }),
	},
	{
		group: "agent",
		name: `OpenAI SDK: ${DELTAS} text deltas over loopback SSE`,
		goal: "< 100 µs per delta (500 ms)",
		maxMs: 500,
		toolbelt: async () => ({ ok: await streamThroughSdk("openai") }),
	},
	{
		group: "agent",
		name: `Anthropic SDK: ${DELTAS} text deltas over loopback SSE`,
		goal: "< 100 µs per delta (500 ms)",
		maxMs: 500,
		toolbelt: async () => ({ ok: await streamThroughSdk("anthropic") }),
	},
];
