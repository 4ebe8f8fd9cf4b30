import type { RetryOptions } from "./retry.js";

/** Options shared by the built-in providers. */
export interface ProviderOptions {
	/** API key for every request. Default: `StreamOptions.apiKey`, then the provider's environment variable. */
	apiKey?: string;
	/** Retry policy for 429, 5xx and overloaded replies. Default: see `RetryOptions`. */
	retry?: RetryOptions;
	/** Extra HTTP headers sent with every request. Default: none. */
	headers?: Record<string, string>;
	/** Request timeout in ms (per attempt), until the response headers arrive. Default: 600000 (10 min). */
	timeoutMs?: number;
	/**
	 * Longest silence in ms while waiting for the next stream event before the attempt is given up
	 * as stalled (retried when nothing has streamed yet). Default: 300000 (5 min).
	 */
	idleTimeoutMs?: number;
	/**
	 * Most characters of text, thinking and tool-call arguments one reply may stream before it is
	 * stopped with an error (a server streaming without end). Default: 33554432 (32 Mi).
	 */
	maxReplyCharacters?: number;
}
