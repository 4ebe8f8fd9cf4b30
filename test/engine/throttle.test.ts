import { describe, expect, it } from "vitest";
import { createThrottle } from "../../src/engine/events.js";

// The throttle counts each interval from the end of the previous delivery, so the gap between the
// starts of two deliveries, stamped inside them on the monotonic clock, is at least the interval
// however long the process is kept off the CPU in between: no assertion here depends on an idle CPU.
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

	it("counts the interval from the end of a slow delivery, and a push made inside one waits too", async () => {
		const deliveries: { start: number; end: number; value: number }[] = [];
		let throttle: ReturnType<typeof createThrottle<number>> | undefined;
		throttle = createThrottle<number>(40, (value) => {
			const start = performance.now();
			throttle?.push(value + 100);
			while (performance.now() - start < 30) {
				// A receiver busy for 30 ms (a slow renderer).
			}
			deliveries.push({ start, end: performance.now(), value });
		});
		throttle.push(1);
		await new Promise((resolve) => setTimeout(resolve, 250));
		throttle.close();
		expect(deliveries[0]?.value).toBe(1);
		expect(deliveries[1]?.value).toBe(101);
		for (let index = 1; index < deliveries.length; index++) {
			const gap = (deliveries[index]?.start ?? 0) - (deliveries[index - 1]?.end ?? 0);
			expect(gap).toBeGreaterThanOrEqual(40);
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
