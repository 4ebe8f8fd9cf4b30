import { spawn } from "node:child_process";
import { existsSync, mkdirSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isRunning, type ProcStat, readProcStat } from "../../../src/workspace/local/process/proc-stat.js";
import { eventually } from "./survivors.js";

const running: ProcStat = { state: "S", parentPid: 1, groupId: 1, startTicks: 1, flags: 0, pendingSignals: 0 };

// A process killed by SIGKILL that the machine has not yet scheduled to act on it still reads as
// sleeping or runnable, without the exiting flag: it must not count as left running (a finished
// command reported "Still running in the background" for it under load).
describe("a process with a SIGKILL pending", () => {
	it("does not run on; other pending signals and the exiting flag read as before", () => {
		expect(isRunning(running)).toBe(true);
		expect(isRunning({ ...running, pendingSignals: 1 << 8 })).toBe(false);
		expect(isRunning({ ...running, pendingSignals: (1 << 9) | (1 << 14) })).toBe(true);
		expect(isRunning({ ...running, flags: 0x4 })).toBe(false);
		expect(isRunning({ ...running, state: "Z" })).toBe(false);
	});

	// The cgroup v1 freezer is the one place a killed process is held before it exits (v2 lets a
	// frozen process die): where this machine has one (as root), the pending SIGKILL is read from
	// a real process's stat.
	const freezer = "/sys/fs/cgroup/freezer";
	const folder = join(freezer, `toolbelt-test-${process.pid}`);
	const holdsKilled = process.platform === "linux" && process.getuid?.() === 0 && existsSync(join(freezer, "tasks"));
	afterEach(async () => {
		if (!existsSync(folder)) return;
		writeFileSync(join(folder, "freezer.state"), "THAWED");
		await eventually(() => {
			try {
				rmdirSync(folder);
				return true;
			} catch {
				return false;
			}
		});
	});

	it.skipIf(!holdsKilled)("is read from /proc as killed while it waits to exit", async () => {
		const sleeper = spawn("sleep", ["100"], { stdio: "ignore" });
		const pid = sleeper.pid ?? 0;
		mkdirSync(folder);
		writeFileSync(join(folder, "cgroup.procs"), String(pid));
		writeFileSync(join(folder, "freezer.state"), "FROZEN");
		expect(await eventually(() => readProcStat(pid)?.state === "D")).toBe(true);
		const frozen = readProcStat(pid);
		expect(frozen && isRunning(frozen)).toBe(true);
		sleeper.kill("SIGKILL");
		expect(await eventually(() => (readProcStat(pid)?.pendingSignals ?? 0) !== 0)).toBe(true);
		const killed = readProcStat(pid);
		expect(killed?.state).toBe("D");
		expect(killed && isRunning(killed)).toBe(false);
		writeFileSync(join(folder, "freezer.state"), "THAWED");
		expect(await eventually(() => readProcStat(pid) === undefined || readProcStat(pid)?.state === "Z")).toBe(true);
	});
});
