import { createErrorReply } from "../messages.js";
import type { AssistantMessageEvent, Model, ModelContext, StreamOptions } from "../types.js";
import type { ProviderOptions } from "./index.js";

/** Options of `streamAnthropicMessages`. */
export type AnthropicMessagesOptions = StreamOptions & ProviderOptions;

/** Streams a reply from the Anthropic Messages API. */
export async function* streamAnthropicMessages(
	model: Model,
	_context: ModelContext,
	_options: AnthropicMessagesOptions = {},
): AsyncGenerator<AssistantMessageEvent> {
	yield { type: "error", message: createErrorReply({ model, errorMessage: "Not implemented yet." }) };
}
