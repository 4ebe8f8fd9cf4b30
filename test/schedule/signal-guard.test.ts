import { spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readProcStat } from "../../src/workspace/local/process/proc-stat.js";

/** This worker's process group id, read as the guard reads it. */
const groupOfWorker = (): number => readProcStat("self")?.groupId ?? Number.NaN;

// SIGCONT: were the guard missing, the signal would reach the run and change nothing there.
describe("the workers' signal guard (test/schedule/signal-guard.ts)", () => {
	it("refuses a signal to the worker's own process group, by 0 and by its id, and to vitest's main process", () => {
		expect(() => process.kill(0, "SIGCONT")).toThrow(/would signal the test run itself/);
		expect(() => process.kill(-groupOfWorker(), "SIGCONT")).toThrow(/would signal the test run itself/);
		expect(() => process.kill(process.ppid, "SIGCONT")).toThrow(/would signal the test run itself/);
	});

	it("refuses a kill of a child whose spawn failed until Node reported the failure, then lets it return false", async () => {
		const child = spawn(join(tmpdir(), `no-such-program-${process.pid}`), [], { stdio: "ignore" });
		const reported = new Promise((resolve) => child.once("error", resolve));
		expect(child.pid).toBeUndefined();
		expect(() => child.kill("SIGCONT")).toThrow(/spawn failed/);
		await reported;
		expect(child.kill("SIGCONT")).toBe(false);
	});

	it("lets a liveness check and a signal to another process through", () => {
		expect(process.kill(0, 0)).toBe(true);
		expect(process.kill(process.pid, "SIGCONT")).toBe(true);
	});
});
