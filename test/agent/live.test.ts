import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { messageText } from "../../src/agent/messages.js";
import type { Model } from "../../src/agent/types.js";
import type { AgentTool } from "../../src/engine/types.js";

/** Live checks against the real APIs; they run only when a key is set (they cost a few tokens). */
const schema = Type.Object({ word: Type.String({ description: "The word to look up." }) });
const secretTool: AgentTool<typeof schema> = {
	name: "lookup_secret",
	description: "Returns the secret number for a word.",
	parameters: schema,
	execute: async (_id, args) => ({ content: [{ type: "text", text: `The secret number for ${args.word} is 4817.` }] }),
};

async function askForSecret(model: Model) {
	const agent = new Agent({
		model,
		tools: [secretTool],
		systemPrompt: "Use the tools you have. Answer in one short sentence.",
		streamOptions: { maxTokens: 300 },
	});
	await agent.prompt('Use lookup_secret with the word "banana" and tell me the number.');
	return agent;
}

describe.skipIf(!process.env.OPENAI_API_KEY)("live: OpenAI Chat Completions", () => {
	it("calls a tool and answers with its result", { timeout: 60_000 }, async () => {
		const agent = await askForSecret({
			provider: "openai",
			id: process.env.TOOLBELT_LIVE_OPENAI_MODEL ?? "gpt-4.1-mini",
		});
		expect(agent.state.lastError).toBeUndefined();
		expect(agent.state.messages.some((message) => message.role === "toolResult")).toBe(true);
		expect(messageText(agent.state.messages.at(-1)!)).toContain("4817");
	});
});

describe.skipIf(!process.env.ANTHROPIC_API_KEY)("live: Anthropic Messages", () => {
	it("calls a tool and answers with its result", { timeout: 60_000 }, async () => {
		const agent = await askForSecret({
			provider: "anthropic",
			id: process.env.TOOLBELT_LIVE_ANTHROPIC_MODEL ?? "claude-haiku-4-5",
		});
		expect(agent.state.lastError).toBeUndefined();
		expect(agent.state.messages.some((message) => message.role === "toolResult")).toBe(true);
		expect(messageText(agent.state.messages.at(-1)!)).toContain("4817");
	});
});

describe.skipIf(!process.env.TOOLBELT_LIVE_OLLAMA_MODEL)("live: a local OpenAI-compatible server (Ollama)", () => {
	it("calls a tool and answers with its result, without a key", { timeout: 180_000 }, async () => {
		const agent = await askForSecret({
			provider: "ollama",
			id: process.env.TOOLBELT_LIVE_OLLAMA_MODEL ?? "",
			baseUrl: process.env.TOOLBELT_LIVE_OLLAMA_URL ?? "http://127.0.0.1:11434/v1",
		});
		expect(agent.state.lastError).toBeUndefined();
		expect(messageText(agent.state.messages.at(-1)!)).toContain("4817");
	});
});
