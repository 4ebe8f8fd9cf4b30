import { createErrorReply } from "../messages.js";
import type { AssistantMessageEvent, Model, ModelContext, StreamOptions } from "../types.js";
import type { ProviderOptions } from "./index.js";

/** Options of `streamOpenAICompletions`. */
export type OpenAICompletionsOptions = StreamOptions & ProviderOptions;

/** Streams a reply from an OpenAI-compatible Chat Completions API. */
export async function* streamOpenAICompletions(
	model: Model,
	_context: ModelContext,
	_options: OpenAICompletionsOptions = {},
): AsyncGenerator<AssistantMessageEvent> {
	yield { type: "error", message: createErrorReply({ model, errorMessage: "Not implemented yet." }) };
}
