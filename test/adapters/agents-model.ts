// A `Model` for `@openai/agents` that replays scripted turns: each `getResponse` returns the next
// turn's tool calls (or a final text), and records the request so tests can read what the model saw.
import type { Model, ModelRequest, ModelResponse } from "@openai/agents";
import { Usage } from "@openai/agents";

/** One scripted turn: tool calls, or the final answer. */
export type ScriptedTurn = { calls: { id: string; name: string; input: Record<string, unknown> }[] } | { text: string };

/** A model replaying `turns` in order; `requests` holds every request it got. */
export class ScriptedAgentsModel implements Model {
	readonly requests: ModelRequest[] = [];
	#next = 0;

	constructor(private readonly turns: readonly ScriptedTurn[]) {}

	async getResponse(request: ModelRequest): Promise<ModelResponse> {
		this.requests.push(request);
		const turn = this.turns[this.#next++] ?? { text: "(script ended)" };
		if ("text" in turn) {
			return {
				usage: new Usage(),
				output: [
					{
						type: "message",
						role: "assistant",
						status: "completed",
						content: [{ type: "output_text", text: turn.text }],
					},
				],
			};
		}
		return {
			usage: new Usage(),
			output: turn.calls.map((call) => ({
				type: "function_call" as const,
				callId: call.id,
				name: call.name,
				arguments: JSON.stringify(call.input),
				status: "completed" as const,
			})),
		};
	}

	// biome-ignore lint/correctness/useYield: the tests use non-streamed runs only; streaming fails loudly.
	async *getStreamedResponse(): AsyncIterable<never> {
		throw new Error("ScriptedAgentsModel: streamed runs are not scripted");
	}
}
