import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConcurrentBatchBudget, executeToolCalls, fairShares, type ToolResultMessage } from "../../src/engine/index.js";
import { createReadOnlyTools } from "../../src/tools/index.js";
import { useTempDir } from "../helpers/temp-dir.js";

describe("one output budget per batch", () => {
	const tempDir = useTempDir();

	it("shares fairly: what a small result leaves goes to the big ones, never more than the budget", () => {
		expect(fairShares([100, 5000, 50, 5000], 4000)).toEqual([100, 1925, 50, 1925]);
		expect(fairShares([10, 20], 1000)).toEqual([10, 20]);
	});

	it("8 parallel reads of different sizes: every result present, the total within the budget, the small ones whole", async () => {
		const sizes = [200, 40_000, 1_000, 30_000, 300, 20_000, 5_000, 100];
		for (const [index, lines] of sizes.entries()) {
			const body = Array.from(
				{ length: Math.ceil(lines / 20) },
				(_, line) => `file ${index} line ${line} padding`,
			).join("\n");
			await writeFile(join(tempDir(), `f${index}.txt`), `${body}\n`);
		}
		const budget = 24_000;
		const { messages } = await executeToolCalls({
			tools: createReadOnlyTools(tempDir()),
			toolCalls: sizes.map((_, index) => ({
				type: "toolCall" as const,
				id: `r${index}`,
				name: "read",
				arguments: { path: `f${index}.txt` },
			})),
			batchOutputBudget: budget,
		});
		const texts = messages.map((message) =>
			message.content.map((block) => (block.type === "text" ? block.text : "")).join(""),
		);
		expect(texts).toHaveLength(8);
		expect(messages.every((message) => !message.isError)).toBe(true);
		const total = texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0);
		expect(total).toBeLessThanOrEqual(budget);
		for (const index of [0, 2, 4, 7]) {
			expect(texts[index]).not.toContain("batch output budget");
			expect(texts[index]).toContain(`file ${index} line 0 `);
		}
		for (const index of [1, 3, 5]) {
			expect(texts[index]).toMatch(
				/batch output budget: this result was cut from \d+ to \d+ bytes.*page through it \(offset\/limit\)/,
			);
			expect(texts[index]).toContain(`file ${index} line 0 `);
		}
	});

	it("calls answered one by one share a budget while they run together; a call after them opens the next batch", async () => {
		const result = (id: string, bytes: number): ToolResultMessage => ({
			role: "toolResult",
			toolCallId: id,
			toolName: "read",
			content: [{ type: "text", text: "x".repeat(bytes) }],
			isError: false,
			timestamp: 0,
		});
		const batches = new ConcurrentBatchBudget(4000);
		const small = batches.join();
		const big = batches.join();
		const failed = batches.join();
		// Results wait for the whole batch: the small one is not answered before the big one is in.
		let smallAnswered = false;
		const smallDone = small.finish(result("a", 100)).then((message) => {
			smallAnswered = true;
			return message;
		});
		await Promise.resolve();
		expect(smallAnswered).toBe(false);
		const bigDone = big.finish(result("b", 10_000));
		// A call without a result (it failed to start) does not hold the others.
		expect(await failed.finish(undefined)).toBeUndefined();
		const [kept, cut] = await Promise.all([smallDone, bigDone]);
		expect(kept?.content).toEqual([{ type: "text", text: "x".repeat(100) }]);
		const cutText = cut?.content[0]?.type === "text" ? cut.content[0].text : "";
		expect(Buffer.byteLength(cutText)).toBeLessThanOrEqual(3900);
		expect(cutText).toContain("batch output budget: this result was cut from 10000");
		// The batch closed when its last call finished: the next call is a batch of its own, with the whole budget.
		const alone = await batches.join().finish(result("c", 3900));
		expect(alone?.content).toEqual([{ type: "text", text: "x".repeat(3900) }]);
	});
});
