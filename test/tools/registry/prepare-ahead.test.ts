import { describe, expect, it } from "vitest";
import { prepareAhead } from "../../../src/tools/registry/prepare-ahead.js";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("prepareAhead", () => {
	it("prepares at once without a delay", () => {
		let prepared = 0;
		prepareAhead(() => prepared++);
		prepareAhead(() => prepared++, 0);
		expect(prepared).toBe(2);
	});

	it("prepares the given time later, on a timer that keeps no process alive", async () => {
		let prepared = 0;
		const hadRef: boolean[] = [];
		const realSetTimeout = globalThis.setTimeout;
		globalThis.setTimeout = ((callback: () => void, ms: number) => {
			const timer = realSetTimeout(callback, ms);
			queueMicrotask(() => hadRef.push(timer.hasRef()));
			return timer;
		}) as typeof setTimeout;
		try {
			prepareAhead(() => prepared++, 40);
		} finally {
			globalThis.setTimeout = realSetTimeout;
		}
		expect(prepared).toBe(0);
		await pause(5);
		expect(hadRef).toEqual([false]);
		await pause(200);
		expect(prepared).toBe(1);
	});

	it("drops a preparation still waiting when a call begins: the call starts what it needs itself", async () => {
		let prepared = 0;
		const ahead = prepareAhead(() => prepared++, 40);
		ahead.beforeCall();
		ahead.beforeCall();
		await pause(200);
		expect(prepared).toBe(0);
	});
});
