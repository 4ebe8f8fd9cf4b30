import { errorMessage, isAbortError } from "../../engine/index.js";
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
	 * The longest wait for the next stream event, in ms, before the attempt is abandoned as
	 * stalled (and retried if nothing has streamed yet). Default: 300000 (5 min).
	 */
	idleTimeoutMs?: number;
	/**
	 * Most characters of text, thinking and tool-call arguments one reply may stream before it is
	 * stopped as an error (a server streaming without end would otherwise grow the message until
	 * the process runs out of memory). Default: 33554432 (32 Mi).
	 */
	maxReplyCharacters?: number;
	/**
	 * One attempt: sends the request with `signal` and feeds the builder, yielding its drained
	 * events. It ends by calling `builder.finish` (or `fail`); it may throw, which this wrapper
	 * handles. `signal` aborts on the caller's abort and when the stream stalls.
	 */
	attempt: (builder: ReplyBuilder, signal: AbortSignal) => AsyncIterable<AssistantMessageEvent>;
	/** Turns a thrown error into a readable message for `errorMessage`. */
	describeError: (error: unknown) => string;
}

const ABORTED_TEXT = "The request was aborted.";

/** Default of `idleTimeoutMs`: long enough for a slow local model to read a large prompt. */
export const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 300_000;

/** Default of `maxReplyCharacters`: far above any model's output limit (~128k tokens, ~0.5 MB). */
export const DEFAULT_MAX_REPLY_CHARACTERS = 32 * 2 ** 20;

/**
 * The SDKs' request timeout ends once the response headers arrive; a server that then goes
 * silent would hold the stream (and a script running `toolbelt run`) forever. This aborts the
 * attempt's request after `idleMs` without an event.
 */
class IdleWatch {
	readonly controller = new AbortController();
	stalled = false;
	private timer: NodeJS.Timeout | undefined;
	private readonly onAbort = () => this.controller.abort();

	constructor(
		private readonly idleMs: number,
		private readonly signal: AbortSignal | undefined,
	) {
		signal?.addEventListener("abort", this.onAbort, { once: true });
		this.touch();
	}

	/** Restarts the wait (an event arrived). */
	touch(): void {
		clearTimeout(this.timer);
		this.timer = setTimeout(() => {
			this.stalled = true;
			this.controller.abort();
		}, this.idleMs);
	}

	/** Stops watching. Idempotent. */
	dispose(): void {
		clearTimeout(this.timer);
		this.signal?.removeEventListener("abort", this.onAbort);
	}
}

/**
 * Runs attempts until one completes, retrying transient failures (429, 5xx, overloaded,
 * network) with bounded backoff — but only while nothing has streamed, so no content is ever
 * shown twice. Never throws: failures end the stream with an `error` or `aborted` message.
 */
export async function* streamWithRetry(options: StreamWithRetryOptions): AsyncGenerator<AssistantMessageEvent> {
	const retry = resolveRetryOptions(options.retry);
	const { signal } = options;
	const idleMs = Math.max(1, options.idleTimeoutMs ?? DEFAULT_STREAM_IDLE_TIMEOUT_MS);
	const stalledText = `The model's stream stalled: no data for ${formatSeconds(idleMs)}.`;
	const maxReply = options.maxReplyCharacters ?? DEFAULT_MAX_REPLY_CHARACTERS;
	const tooLongText =
		`The model's reply passed ${maxReply.toLocaleString("en-US")} characters (text, thinking and tool-call arguments together) ` +
		"and was stopped there: the server kept streaming without end. The part received is kept; ask again, or for a shorter reply.";
	for (let attempt = 0; ; attempt++) {
		const builder = new ReplyBuilder(options.model);
		let ended = false;
		const watch = new IdleWatch(idleMs, signal);
		try {
			if (signal?.aborted) {
				watch.dispose();
				builder.fail("aborted", ABORTED_TEXT);
				yield* builder.drain();
				return;
			}
			try {
				for await (const event of options.attempt(builder, watch.controller.signal)) {
					if (event.type === "done" || event.type === "error") ended = true;
					else if (builder.receivedCharacters > maxReply) throw new ReplyTooLongError(tooLongText);
					// A consumer may stop at the final event without closing this generator, so the
					// finally below may never run: the watch ends before the final event is handed out.
					if (ended) watch.dispose();
					else watch.touch();
					yield event;
					if (ended) return;
				}
			} catch (error) {
				if (error instanceof ReplyTooLongError) throw error;
				throw watch.stalled && !signal?.aborted ? new StreamStalledError(stalledText) : error;
			}
			// The SDKs end a stream quietly when its request is aborted.
			if (watch.stalled && !signal?.aborted) throw new StreamStalledError(stalledText);
			builder.fail(
				signal?.aborted ? "aborted" : "error",
				signal?.aborted ? ABORTED_TEXT : "The model's stream ended before the reply was complete.",
			);
			watch.dispose();
			yield* builder.drain();
			return;
		} catch (error) {
			const stalled = error instanceof StreamStalledError;
			watch.dispose();
			if (error instanceof ReplyTooLongError) {
				// Ends the request (the SDK's stream may not be closed by leaving its loop alone).
				watch.controller.abort();
				builder.fail("error", error.message);
				yield* builder.drain();
				return;
			}
			if (!stalled && (signal?.aborted || isAbortError(error) || errorClassName(error) === "APIUserAbortError")) {
				builder.fail("aborted", ABORTED_TEXT);
				yield* builder.drain();
				return;
			}
			if (!builder.hasContent && attempt < retry.maxRetries && (stalled || isRetryableError(error))) {
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
				text = stalled ? stalledText : options.describeError(error);
			} catch {
				text = errorMessage(error);
			}
			const retries = attempt > 0 ? ` (after ${attempt} ${attempt === 1 ? "retry" : "retries"})` : "";
			builder.fail("error", text + retries);
			yield* builder.drain();
			return;
		} finally {
			watch.dispose();
		}
	}
}

class StreamStalledError extends Error {}

class ReplyTooLongError extends Error {}

function formatSeconds(ms: number): string {
	const seconds = ms / 1000;
	return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}
