import { AbortError } from "../../engine/index.js";

/** Retry policy for transient failures (429, 5xx, overloaded, network errors). */
export interface RetryOptions {
	/** Retries after the first attempt; 0 disables retrying. Default: 3. */
	maxRetries?: number;
	/** Delay before the first retry, in ms; doubles with each retry (with jitter). Default: 1000. */
	baseDelayMs?: number;
	/** Upper bound of one delay, in ms, also when the server asks for longer (`retry-after`). Default: 30000. */
	maxDelayMs?: number;
}

/** The retry policy with every default filled in. */
export type ResolvedRetryOptions = Required<RetryOptions>;

/** Fills in the defaults of a retry policy. */
export function resolveRetryOptions(options: RetryOptions = {}): ResolvedRetryOptions {
	return {
		maxRetries: Math.max(0, options.maxRetries ?? 3),
		baseDelayMs: Math.max(0, options.baseDelayMs ?? 1000),
		maxDelayMs: Math.max(0, options.maxDelayMs ?? 30_000),
	};
}

interface ErrorShape {
	status?: unknown;
	type?: unknown;
	name?: unknown;
	headers?: unknown;
	error?: unknown;
}

/** The class name of an SDK error (the SDKs do not set `name`), e.g. `APIConnectionError`. */
export function errorClassName(error: unknown): string | undefined {
	if (typeof error !== "object" || error === null) return undefined;
	const className = (error as { constructor?: { name?: unknown } }).constructor?.name;
	if (typeof className === "string" && className !== "Error" && className !== "Object") return className;
	const name = (error as ErrorShape).name;
	return typeof name === "string" ? name : undefined;
}

/** The HTTP status of an SDK error, if it has one. */
export function errorStatus(error: unknown): number | undefined {
	const status = (error as ErrorShape | undefined)?.status;
	return typeof status === "number" ? status : undefined;
}

/** The provider's error type (e.g. `overloaded_error`, `rate_limit_error`), if any. */
export function errorType(error: unknown): string | undefined {
	const shape = error as ErrorShape | undefined;
	if (typeof shape?.type === "string") return shape.type;
	const inner = shape?.error as { type?: unknown; error?: { type?: unknown } } | undefined;
	if (typeof inner?.type === "string") return inner.type;
	if (typeof inner?.error?.type === "string") return inner.error.type;
	return undefined;
}

const RETRYABLE_TYPES = new Set(["overloaded_error", "rate_limit_error", "api_error", "server_error"]);

/**
 * Whether a failed request is worth retrying: rate limits (429), timeouts (408), conflicts
 * (409), server errors (5xx, 529 overloaded), overloaded/rate-limit errors sent mid-stream,
 * and network failures. Never an abort, a bad request or an auth error.
 */
export function isRetryableError(error: unknown): boolean {
	const name = errorClassName(error);
	if (name === "AbortError" || name === "APIUserAbortError") return false;
	const status = errorStatus(error);
	if (status !== undefined) return status === 408 || status === 409 || status === 429 || status >= 500;
	const type = errorType(error);
	if (type !== undefined) return RETRYABLE_TYPES.has(type);
	if (name === "APIConnectionTimeoutError") return true;
	// A connection cut before the reply arrived (proxy restart, idle timeout) is worth another try.
	if (causeCodes(error).some((code) => TRANSIENT_NETWORK_CODES.has(code))) return true;
	// Nothing listening or no such host is a setup problem (Ollama not started, typo in the URL):
	// say so at once instead of after a minute of backoff.
	return name === "APIConnectionError" && !causeCodes(error).some((code) => PERMANENT_NETWORK_CODES.has(code));
}

const TRANSIENT_NETWORK_CODES = new Set([
	"ECONNRESET",
	"EPIPE",
	"ETIMEDOUT",
	"ECONNABORTED",
	"UND_ERR_SOCKET",
	"UND_ERR_CONNECT_TIMEOUT",
]);

const PERMANENT_NETWORK_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_NONAME", "ERR_INVALID_URL"]);

/** The `code`s along an error's `cause` chain (fetch wraps the socket error). */
export function causeCodes(error: unknown): string[] {
	const codes: string[] = [];
	let current: unknown = error;
	for (let depth = 0; current && depth < 5; depth++) {
		const code = (current as { code?: unknown }).code;
		if (typeof code === "string") codes.push(code);
		current = (current as { cause?: unknown }).cause;
	}
	return codes;
}

/** The server's requested wait (`retry-after-ms` or `retry-after` header), in ms, if any. */
function requestedDelayMs(error: unknown): number | undefined {
	const headers = (error as ErrorShape | undefined)?.headers;
	if (!headers || typeof (headers as Headers).get !== "function") return undefined;
	const header = (name: string) => (headers as Headers).get(name);
	const milliseconds = Number.parseFloat(header("retry-after-ms") ?? "");
	if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
	const value = header("retry-after");
	if (!value) return undefined;
	const seconds = Number.parseFloat(value);
	if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
	const date = Date.parse(value);
	return Number.isFinite(date) ? Math.max(0, date - Date.now()) : undefined;
}

/** The delay before retry number `retry` (0-based): the server's request, else exponential with jitter; capped. */
export function retryDelayMs(retry: number, options: ResolvedRetryOptions, error?: unknown): number {
	const requested = requestedDelayMs(error);
	if (requested !== undefined) return Math.min(requested, options.maxDelayMs);
	const exponential = options.baseDelayMs * 2 ** retry;
	// Jitter spreads retries of many clients hit by the same outage.
	return Math.min(exponential * (0.75 + Math.random() * 0.5), options.maxDelayMs);
}

/** Waits `ms`, rejecting with `AbortError` as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
	return new Promise((resolve, reject) => {
		if (signal?.aborted) return reject(new AbortError());
		const onAbort = () => {
			clearTimeout(timer);
			reject(new AbortError());
		};
		const timer = setTimeout(() => {
			signal?.removeEventListener("abort", onAbort);
			resolve();
		}, ms);
		signal?.addEventListener("abort", onAbort, { once: true });
	});
}
