import { describe, expect, it } from "vitest";
import { createThrottle } from "../../src/engine/events.js";

// The spacing is measured where the throttle decides it (the start of a delivery, on the monotonic
// clock), so a loaded machine can only make the gaps longer: no assertion here depends on an idle CPU.
describe("createThrottle", () => {
	it("delivers the first value at once, then at most one per interval, and the latest value last", async () => {
		const deliveries: { at: number; value: number }[] = [];
		const throttle = createThrottle<number>(50, (value) => deliveries.push({ at: performance.now(), value }));
		let pushed = 0;
		const until = performance.now() + 300;
		while (performance.now() < until) {
			throttle.push(++pushed);
			await new Promise((resolve) => setImmediate(resolve));
		}
		const last = pushed;
		await new Promise((resolve) => setTimeout(resolve, 200));
		expect(deliveries[0]?.value).toBe(1);
		expect(deliveries.at(-1)?.value).toBe(last);
		expect(deliveries.length).toBeGreaterThanOrEqual(2);
		expect(deliveries.length).toBeLessThan(pushed);
		for (let index = 1; index < deliveries.length; index++) {
			const gap = (deliveries[index]?.at ?? 0) - (deliveries[index - 1]?.at ?? 0);
			expect(gap).toBeGreaterThanOrEqual(49.9);
		}
	});

	it("drops the pending value and delivers nothing after close", async () => {
		const delivered: number[] = [];
		const throttle = createThrottle<number>(50, (value) => delivered.push(value));
		throttle.push(1);
		throttle.push(2);
		throttle.close();
		throttle.push(3);
		await new Promise((resolve) => setTimeout(resolve, 120));
		expect(delivered).toEqual([1]);
	});
});
