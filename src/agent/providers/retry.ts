/** Retry policy for transient failures (429, 5xx, overloaded, network errors). */
export interface RetryOptions {
	/** Retries after the first attempt; 0 disables retrying. Default: 3. */
	maxRetries?: number;
	/** Delay before the first retry, in ms; doubles each retry (with jitter). Default: 1000. */
	baseDelayMs?: number;
	/** Upper bound of one delay, in ms, also when the server asks for longer (`retry-after`). Default: 30000. */
	maxDelayMs?: number;
}
