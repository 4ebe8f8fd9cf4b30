import { errorMessage, isAbortError } from "../../engine/errors.js";
import type { AssistantMessageEvent, Model } from "../types.js";
import { ReplyBuilder } from "./reply-builder.js";
import {
	errorClassName,
	isRetryableError,
	type RetryOptions,
	resolveRetryOptions,
	retryDelayMs,
	sleep,
} from "./retry.js";

/** Options of `streamWithRetry`. */
export interface StreamWithRetryOptions {
	model: Pick<Model, "provider" | "id">;
	signal?: AbortSignal;
	retry?: RetryOptions;
	/**
	 * One attempt: sends the request and feeds the builder, yielding its drained events. It ends
	 * by calling `builder.finish` (or `fail`); it may throw, which this wrapper handles.
	 */
	attempt: (builder: ReplyBuilder) => AsyncIterable<AssistantMessageEvent>;
	/** Turns a thrown error into a readable message for `errorMessage`. */
	describeError: (error: unknown) => string;
}

const ABORTED_TEXT = "The request was aborted.";

/**
 * Runs attempts until one completes, retrying transient failures (429, 5xx, overloaded,
 * network) with bounded backoff — but only while nothing has streamed, so no content is ever
 * shown twice. Never throws: failures end the stream with an `error` or `aborted` message.
 */
export async function* streamWithRetry(options: StreamWithRetryOptions): AsyncGenerator<AssistantMessageEvent> {
	const retry = resolveRetryOptions(options.retry);
	const { signal } = options;
	for (let attempt = 0; ; attempt++) {
		const builder = new ReplyBuilder(options.model);
		let ended = false;
		try {
			if (signal?.aborted) {
				builder.fail("aborted", ABORTED_TEXT);
				yield* builder.drain();
				return;
			}
			for await (const event of options.attempt(builder)) {
				if (event.type === "done" || event.type === "error") ended = true;
				yield event;
				if (ended) return;
			}
			// The SDKs end a stream quietly when its request is aborted.
			builder.fail(
				signal?.aborted ? "aborted" : "error",
				signal?.aborted ? ABORTED_TEXT : "The model's stream ended before the reply was complete.",
			);
			yield* builder.drain();
			return;
		} catch (error) {
			if (signal?.aborted || isAbortError(error) || errorClassName(error) === "APIUserAbortError") {
				builder.fail("aborted", ABORTED_TEXT);
				yield* builder.drain();
				return;
			}
			if (!builder.hasContent && attempt < retry.maxRetries && isRetryableError(error)) {
				try {
					await sleep(retryDelayMs(attempt, retry, error), signal);
				} catch {
					builder.fail("aborted", ABORTED_TEXT);
					yield* builder.drain();
					return;
				}
				continue;
			}
			let text: string;
			try {
				text = options.describeError(error);
			} catch {
				text = errorMessage(error);
			}
			const retries = attempt > 0 ? ` (after ${attempt} ${attempt === 1 ? "retry" : "retries"})` : "";
			builder.fail("error", text + retries);
			yield* builder.drain();
			return;
		}
	}
}
