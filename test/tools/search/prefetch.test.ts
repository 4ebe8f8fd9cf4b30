import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { Prefetch } from "../../../src/workspace/local/search/prefetch.js";

function counting(total: number) {
	const state = { pulled: 0, closed: false };
	async function* source(): AsyncGenerator<number[]> {
		try {
			for (let index = 0; index < total; index++) {
				state.pulled++;
				yield [index];
			}
		} finally {
			state.closed = true;
		}
	}
	return { state, source: source() };
}

describe("Prefetch", () => {
	it("reads ahead only up to its cap, then hands out everything in order", async () => {
		const { state, source } = counting(10);
		const prefetch = new Prefetch(source, 3);
		await sleep(10);
		expect(state.pulled).toBe(3);
		const seen: number[] = [];
		for await (const batch of prefetch.drain()) seen.push(...batch);
		expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
		expect(state.closed).toBe(true);
	});

	it("releases the source when the consumer stops early", async () => {
		const { state, source } = counting(10);
		const prefetch = new Prefetch(source, 2);
		for await (const batch of prefetch.drain()) {
			if ((batch[0] ?? 0) >= 3) break;
		}
		await sleep(10);
		expect(state.closed).toBe(true);
		expect(state.pulled).toBe(4);
	});

	it("releases a source that was never drained", async () => {
		const { state, source } = counting(10);
		const prefetch = new Prefetch(source, 2);
		await sleep(10);
		prefetch.close();
		await sleep(10);
		expect(state.closed).toBe(true);
	});
});
