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

/** One call's place in a `ConcurrentBatchBudget` batch. */
export interface BatchBudgetMember {
	/**
	 * Hands in the call's result (undefined: it has none, e.g. it failed to start) and resolves, once
	 * every call of the batch has handed in, to the result cut to its share. Further calls return the
	 * first one's promise.
	 */
	finish(message: ToolResultMessage | undefined): Promise<ToolResultMessage | undefined>;
}

interface OpenBatch {
	results: (ToolResultMessage | undefined)[];
	running: number;
	settled: Promise<(ToolResultMessage | undefined)[]>;
	settle(results: (ToolResultMessage | undefined)[]): void;
}

/**
 * One budget shared by calls that run at the same time but are asked for and answered one by one,
 * as an MCP client sends the parallel calls of one reply as separate requests. A batch opens with a
 * call that arrives when none is open and takes every call that arrives while one of its calls
 * still runs; each result waits until the whole batch has finished (the client's model waits for
 * all of them anyway) and is then cut to its fair share (`applyBatchBudget`).
 */
export class ConcurrentBatchBudget {
	private readonly budget: number;
	private open: OpenBatch | undefined;

	/** `budget`: the most UTF-8 bytes of text the results of one batch return together. */
	constructor(budget: number) {
		this.budget = budget;
	}

	/** Joins the open batch, or opens one, as a call starts. */
	join(): BatchBudgetMember {
		const batch = this.open ?? this.openBatch();
		const index = batch.results.length;
		batch.results.push(undefined);
		batch.running++;
		let finished: Promise<ToolResultMessage | undefined> | undefined;
		return {
			finish: (message) => {
				finished ??= this.finishOne(batch, index, message);
				return finished;
			},
		};
	}

	private openBatch(): OpenBatch {
		let settle: OpenBatch["settle"] = () => {};
		const settled = new Promise<(ToolResultMessage | undefined)[]>((resolve) => {
			settle = resolve;
		});
		this.open = { results: [], running: 0, settled, settle: (results) => settle(results) };
		return this.open;
	}

	private async finishOne(
		batch: OpenBatch,
		index: number,
		message: ToolResultMessage | undefined,
	): Promise<ToolResultMessage | undefined> {
		batch.results[index] = message;
		if (--batch.running === 0) {
			// Closed before it is cut: a call arriving from now on opens the next batch.
			if (this.open === batch) this.open = undefined;
			const present = batch.results.filter((result): result is ToolResultMessage => result !== undefined);
			const cut = applyBatchBudget(present, this.budget);
			let next = 0;
			batch.settle(batch.results.map((result) => (result === undefined ? undefined : cut[next++])));
		}
		return (await batch.settled)[index];
	}
}
