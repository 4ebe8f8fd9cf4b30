import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { createCallGate } from "../../src/engine/call-gate.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Records start and end of each task so the order can be checked. */
function recorder() {
	const log: string[] = [];
	const task =
		(name: string, ms: number, fail = false) =>
		async () => {
			log.push(`start ${name}`);
			await sleep(ms);
			log.push(`end ${name}`);
			if (fail) throw new Error(`${name} failed`);
			return name;
		};
	return { log, task };
}

describe("createCallGate", () => {
	it("overlaps parallel calls", async () => {
		const gate = createCallGate();
		const { log, task } = recorder();
		const started = Date.now();
		await Promise.all([gate.run(task("a", 100)), gate.run(task("b", 100)), gate.run(task("c", 100))]);
		expect(Date.now() - started).toBeLessThan(280);
		expect(log.slice(0, 3)).toEqual(["start a", "start b", "start c"]);
	});

	it("makes a sequential call wait for earlier calls and later calls wait for it", async () => {
		const gate = createCallGate();
		const { log, task } = recorder();
		await Promise.all([
			gate.run(task("read1", 60)),
			gate.run(task("read2", 30)),
			gate.run(task("edit", 30), { mode: "sequential" }),
			gate.run(task("read3", 10)),
			gate.run(task("read4", 10)),
		]);
		const index = (entry: string) => log.indexOf(entry);
		expect(index("start edit")).toBeGreaterThan(index("end read1"));
		expect(index("start edit")).toBeGreaterThan(index("end read2"));
		expect(index("start read3")).toBeGreaterThan(index("end edit"));
		expect(index("start read4")).toBeGreaterThan(index("end edit"));
		expect(index("start read4")).toBeLessThan(index("end read3"));
	});

	it("runs consecutive sequential calls one at a time in arrival order", async () => {
		const gate = createCallGate();
		const { log, task } = recorder();
		await Promise.all([
			gate.run(task("w1", 30), { mode: "sequential" }),
			gate.run(task("w2", 10), { mode: "sequential" }),
			gate.run(task("w3", 20), { mode: "sequential" }),
		]);
		expect(log).toEqual(["start w1", "end w1", "start w2", "end w2", "start w3", "end w3"]);
	});

	it("keeps going after a call fails", async () => {
		const gate = createCallGate();
		const { task } = recorder();
		const failing = gate.run(task("bad", 10, true), { mode: "sequential" });
		const next = gate.run(task("next", 10), { mode: "sequential" });
		await expect(failing).rejects.toThrow("bad failed");
		await expect(next).resolves.toBe("next");
		expect(gate.pending).toBe(0);
	});

	it("drops a queued call whose signal aborts, at once, and never starts it", async () => {
		const gate = createCallGate();
		const { log, task } = recorder();
		const blocker = gate.run(task("blocker", 600), { mode: "sequential" });
		const controller = new AbortController();
		const queued = gate.run(task("queued", 10), { signal: controller.signal });
		const after = gate.run(task("after", 10));
		await sleep(20);
		const abortedAt = Date.now();
		controller.abort();
		await expect(queued).rejects.toMatchObject({ name: "AbortError" });
		// Well before the blocker ends (580 ms later), with room for a loaded machine.
		expect(Date.now() - abortedAt).toBeLessThan(300);
		await blocker;
		await after;
		expect(log).not.toContain("start queued");
		expect(log).toContain("end after");
	});

	it("rejects at once when the signal is already aborted", async () => {
		const gate = createCallGate();
		const controller = new AbortController();
		controller.abort();
		await expect(gate.run(async () => "never", { signal: controller.signal })).rejects.toMatchObject({
			name: "AbortError",
		});
		expect(gate.pending).toBe(0);
	});

	it("holds nothing for settled parallel calls: a long run of them does not grow memory", async () => {
		setFlagsFromString("--expose-gc");
		const collect = runInNewContext("gc") as () => void;
		const gate = createCallGate();
		const run = async () => {
			for (let round = 0; round < 10; round++) {
				await Promise.all(Array.from({ length: 10_000 }, (_, index) => gate.run(async () => index)));
			}
		};
		await run();
		collect();
		const before = process.memoryUsage().heapUsed;
		await run();
		collect();
		// Keeping them costs about 6 MB per 100,000 calls.
		expect(process.memoryUsage().heapUsed - before).toBeLessThan(2 * 2 ** 20);
		const started = Date.now();
		await gate.run(async () => "barrier", { mode: "sequential" });
		expect(Date.now() - started).toBeLessThan(1000);
	});
});
