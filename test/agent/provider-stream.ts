import type { AssistantMessage, AssistantMessageEvent } from "../../src/agent/types.js";

/** Retries fast enough for tests: a 429 then success settles in milliseconds. */
export const fastRetry = { maxRetries: 2, baseDelayMs: 10, maxDelayMs: 50 };

/**
 * Drains a provider stream: every event, a JSON snapshot of the message as a UI saw it at each
 * event (`partial` is the live message), and the final message. Throws if the stream did not end
 * with `done` or `error`.
 */
export async function collect(iterable: AsyncIterable<AssistantMessageEvent>) {
	const events: AssistantMessageEvent[] = [];
	const snapshots: string[] = [];
	for await (const event of iterable) {
		events.push(event);
		snapshots.push(JSON.stringify("partial" in event ? event.partial : event.message));
	}
	const last = events.at(-1);
	if (!last || (last.type !== "done" && last.type !== "error")) throw new Error("stream did not end with done/error");
	return { events, snapshots, final: last.message as AssistantMessage };
}
