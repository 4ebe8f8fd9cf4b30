import type { Message } from "../../agent/index.js";
import { formatDuration } from "../../engine/index.js";

function compact(count: number): string {
	return count < 10_000 ? String(count) : `${(count / 1000).toFixed(count < 100_000 ? 1 : 0)}k`;
}

/**
 * One line about a finished prompt: tokens (prompt incl. cache reads, and output) and wall time,
 * e.g. `12.3k in (8.0k cached) · 456 out · 8.1 s`. Empty when the provider reported no usage.
 */
export function formatTurnSummary(messages: readonly Message[], durationMs: number): string {
	let input = 0;
	let cached = 0;
	let output = 0;
	for (const message of messages) {
		if (message.role !== "assistant") continue;
		input += message.usage.inputTokens + message.usage.cacheReadTokens + message.usage.cacheWriteTokens;
		cached += message.usage.cacheReadTokens;
		output += message.usage.outputTokens;
	}
	if (input === 0 && output === 0) return "";
	const cache = cached > 0 ? ` (${compact(cached)} cached)` : "";
	return `${compact(input)} in${cache} · ${compact(output)} out · ${formatDuration(durationMs)}`;
}
