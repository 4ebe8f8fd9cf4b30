import { errorMessage } from "../../engine/index.js";
import { createErrorReply } from "../messages.js";
import type { AssistantMessageEvent, Model, ModelApi, ModelContext, StreamFn, StreamOptions } from "../types.js";
import type { ProviderOptions } from "./provider-options.js";

export type { ProviderOptions } from "./provider-options.js";

/** The protocol a model speaks: `model.api`, else Anthropic Messages for `anthropic`, else OpenAI Chat Completions. */
export function modelApi(model: Pick<Model, "provider" | "api">): ModelApi {
	if (model.api) return model.api;
	return model.provider === "anthropic" ? "anthropic-messages" : "openai-completions";
}

/**
 * Creates a `StreamFn` that speaks OpenAI Chat Completions or Anthropic Messages, chosen per
 * request by `modelApi(model)`. The SDKs load on the first request, not at import.
 */
export function createStreamFn(options: ProviderOptions = {}): StreamFn {
	return (model: Model, context: ModelContext, streamOptions?: StreamOptions) =>
		streamLazily(model, context, streamOptions, options);
}

/** The default provider: `createStreamFn()` with default options. */
export const streamModel: StreamFn = createStreamFn();

async function* streamLazily(
	model: Model,
	context: ModelContext,
	streamOptions: StreamOptions | undefined,
	options: ProviderOptions,
): AsyncGenerator<AssistantMessageEvent> {
	// A per-request key (getApiKey) wins over the factory's key.
	const merged = { ...options, ...streamOptions, apiKey: streamOptions?.apiKey ?? options.apiKey };
	let provider: StreamFn;
	try {
		provider =
			modelApi(model) === "anthropic-messages"
				? (await import("./anthropic-messages.js")).streamAnthropicMessages
				: (await import("./openai-completions.js")).streamOpenAICompletions;
	} catch (error) {
		yield {
			type: "error",
			message: createErrorReply({ model, errorMessage: `Could not load the provider: ${errorMessage(error)}` }),
		};
		return;
	}
	yield* provider(model, context, merged);
}
