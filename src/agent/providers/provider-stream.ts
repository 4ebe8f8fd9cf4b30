import { createErrorReply } from "../messages.js";
import type { AssistantMessageEvent, Model, StreamOptions } from "../types.js";
import { apiKeyEnvVar, resolveApiKey } from "./config.js";
import { describeProviderError } from "./errors.js";
import type { ProviderOptions } from "./provider-options.js";
import type { ReplyBuilder } from "./reply-builder.js";
import { streamWithRetry } from "./stream-with-retry.js";

/** The client options both SDKs take alike. Retries are ours (`streamWithRetry`), so the SDK's are off. */
export interface SdkClientOptions {
	/** `no-key` for a keyless local server: the SDKs insist on some key. */
	apiKey: string;
	baseURL: string;
	maxRetries: 0;
	/** Until the response headers; the idle limit of `streamWithRetry` covers the stream after. */
	timeout: number;
	defaultHeaders: Record<string, string> | undefined;
}

/** What makes one provider: its name in messages, its SDK client, and one request through it. */
export interface ProviderAdapter<Client, Request> {
	/** The API's name in messages, e.g. `Anthropic API`. */
	label: string;
	/** Creates the SDK client from the options both SDKs share. */
	createClient: (clientOptions: SdkClientOptions) => Client;
	/** One request through the client: feeds the builder and yields its events (see `streamWithRetry`). */
	attempt: (
		client: Client,
		request: Request,
		builder: ReplyBuilder,
		signal: AbortSignal,
	) => AsyncIterable<AssistantMessageEvent>;
}

/** One model request of `streamFromProvider`. */
export interface ProviderRequest<Request> {
	model: Model;
	/** Where requests go. */
	baseUrl: string;
	/** Per-request and provider options. */
	options: StreamOptions & ProviderOptions;
	/** The SDK's request body, built by the provider. */
	request: Request;
}

/**
 * What every provider does around its requests: resolves the key (a missing one names the
 * variable to set), creates the client, and streams with retries and readable errors. Never throws.
 */
export async function* streamFromProvider<Client, Request>(
	adapter: ProviderAdapter<Client, Request>,
	call: ProviderRequest<Request>,
): AsyncGenerator<AssistantMessageEvent> {
	const { model, baseUrl, options } = call;
	const key = resolveApiKey({ provider: model.provider, apiKey: options.apiKey, baseUrl });
	if (!key.ok) {
		yield { type: "error", message: createErrorReply({ model, errorMessage: key.errorMessage }) };
		return;
	}
	const describe = (error: unknown) =>
		describeProviderError(error, {
			label: adapter.label,
			baseUrl,
			modelId: model.id,
			apiKeyVariable: apiKeyEnvVar(model.provider),
		});
	let client: Client;
	try {
		client = adapter.createClient({
			apiKey: key.apiKey ?? "no-key",
			baseURL: baseUrl,
			maxRetries: 0,
			timeout: options.timeoutMs ?? 600_000,
			defaultHeaders: options.headers,
		});
	} catch (error) {
		yield { type: "error", message: createErrorReply({ model, errorMessage: describe(error) }) };
		return;
	}
	yield* streamWithRetry({
		model,
		signal: options.signal,
		retry: options.retry,
		idleTimeoutMs: options.idleTimeoutMs,
		maxReplyCharacters: options.maxReplyCharacters,
		describeError: describe,
		attempt: (builder, signal) => adapter.attempt(client, call.request, builder, signal),
	});
}
