import { truncateHead, truncateTail } from "./truncate.js";
import type { ToolResultMessage } from "./types.js";

/** Room kept in each cut result for the note that says what was cut. */
const NOTE_BYTES = 400;

function textBytes(message: ToolResultMessage): number {
	let bytes = 0;
	for (const block of message.content) if (block.type === "text") bytes += Buffer.byteLength(block.text);
	return bytes;
}

/**
 * Shares `budget` bytes among results of `sizes` fairly (max-min): a result that fits its even
 * share keeps all of it, and what it leaves is shared among the larger ones. So a small result is
 * never cut because a big neighbour came first, and the shares add up to at most the budget.
 */
export function fairShares(sizes: readonly number[], budget: number): number[] {
	const shares = new Array<number>(sizes.length).fill(0);
	const order = sizes.map((size, index) => ({ size, index })).sort((left, right) => left.size - right.size);
	let left = Math.max(0, budget);
	for (const [position, { size, index }] of order.entries()) {
		const even = Math.floor(left / (order.length - position));
		const share = Math.min(size, even);
		shares[index] = share;
		left -= share;
	}
	return shares;
}

/**
 * Cuts the text of a batch's results so that together they fit `budget` UTF-8 bytes, each to its
 * fair share (`fairShares`); a command's output keeps its tail, anything else its head (as the
 * tools do). Each cut result ends with a note that says what was cut and how to get the rest.
 * Images are not counted or cut. Returns the messages (the same objects when nothing was cut).
 */
export function applyBatchBudget(messages: ToolResultMessage[], budget: number): ToolResultMessage[] {
	const sizes = messages.map(textBytes);
	const total = sizes.reduce((sum, size) => sum + size, 0);
	if (total <= budget) return messages;
	const shares = fairShares(sizes, budget);
	return messages.map((message, index) => {
		const size = sizes[index] ?? 0;
		const share = shares[index] ?? 0;
		if (size <= share) return message;
		const keep = Math.max(0, share - NOTE_BYTES);
		const text = message.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");
		const keepsTail = /^(bash|powershell|bash_output)$/.test(message.toolName);
		const cut = (keepsTail ? truncateHead : truncateTail)(text, { maxBytes: keep, maxLines: Number.MAX_SAFE_INTEGER });
		const how = keepsTail
			? "run it again alone (or with its output sent to a file you then read in pages)"
			: "call it again alone, or page through it (offset/limit)";
		const note = `[batch output budget: this result was cut from ${size} to ${cut.outputBytes} bytes, keeping its ${keepsTail ? "end" : "start"}, so that the ${messages.length} results of this batch fit ${budget} bytes together; to see the rest, ${how}.]`;
		const kept = keepsTail ? `${note}\n${cut.content}` : `${cut.content}\n${note}`;
		const images = message.content.filter((block) => block.type === "image");
		return { ...message, content: [{ type: "text" as const, text: kept }, ...images] };
	});
}
