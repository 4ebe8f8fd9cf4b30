import { describe, expect, it } from "vitest";
import { raceAbort, startDeadline } from "../../src/engine/abort.js";

const never = () => new Promise<string>(() => {});

describe("raceAbort", () => {
	it("settles as the task does when nothing aborts", async () => {
		const controller = new AbortController();
		await expect(raceAbort(Promise.resolve("done"), { signal: controller.signal, graceMs: 10 })).resolves.toBe("done");
		await expect(raceAbort(Promise.reject(new Error("boom")), { signal: controller.signal })).rejects.toThrow("boom");
	});

	it("abandons a task that ignores the abort once the grace ends, with an AbortError", async () => {
		const controller = new AbortController();
		const race = raceAbort(never(), { signal: controller.signal, graceMs: 20 });
		controller.abort();
		await expect(race).rejects.toMatchObject({ name: "AbortError" });
	});

	it("keeps the answer of a task that honours the abort within the grace", async () => {
		const controller = new AbortController();
		let finish: (value: string) => void = () => {};
		const task = new Promise<string>((resolve) => {
			finish = resolve;
		});
		controller.signal.addEventListener("abort", () => finish("stopped cleanly"));
		const race = raceAbort(task, { signal: controller.signal, graceMs: 5000 });
		controller.abort();
		await expect(race).resolves.toBe("stopped cleanly");
	});

	it("settles with what abandon returns, also for a signal aborted before the race", async () => {
		const controller = new AbortController();
		controller.abort();
		await expect(raceAbort(never(), { signal: controller.signal, abandon: () => "aborted" as const })).resolves.toBe(
			"aborted",
		);
	});

	it("keeps waiting when mayAbandon says no", async () => {
		const controller = new AbortController();
		let finish: (value: string) => void = () => {};
		const task = new Promise<string>((resolve) => {
			finish = resolve;
		});
		const race = raceAbort(task, { signal: controller.signal, mayAbandon: () => false });
		controller.abort();
		finish("ran to the end");
		await expect(race).resolves.toBe("ran to the end");
	});
});

describe("startDeadline", () => {
	it("fires at the timeout and says so", async () => {
		const deadline = startDeadline(undefined, 10);
		await new Promise((resolve) => deadline.signal.addEventListener("abort", resolve, { once: true }));
		expect(deadline.timedOut).toBe(true);
		deadline.dispose();
	});

	it("fires on the caller's abort without calling it a timeout", () => {
		const controller = new AbortController();
		const deadline = startDeadline(controller.signal, 60_000);
		controller.abort();
		expect(deadline.signal.aborted).toBe(true);
		expect(deadline.timedOut).toBe(false);
		deadline.dispose();
	});

	it("after dispose, neither the caller's abort nor the timer reaches it", async () => {
		const controller = new AbortController();
		const deadline = startDeadline(controller.signal, 5);
		deadline.dispose();
		controller.abort();
		await new Promise((resolve) => setTimeout(resolve, 30));
		expect(deadline.signal.aborted).toBe(false);
		expect(deadline.timedOut).toBe(false);
	});
});
