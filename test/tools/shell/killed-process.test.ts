import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { disposeShellProcesses } from "../../../src/workspace/local/process/background-registry.js";
import { cgroupsAvailable } from "../../../src/workspace/local/process/cgroup.js";
import { isRunning, type ProcStat, readProcStat } from "../../../src/workspace/local/process/proc-stat.js";
import { localShellOperations } from "../../../src/workspace/local/shell/local-operations.js";
import { useTempDir } from "../../helpers/temp-dir.js";
import { bashWith } from "./output-paths.js";
import { runTool } from "./run-tool.js";
import { cgroupDirectory, cgroupOf, eventually } from "./survivors.js";

// The cgroup v1 freezer is the one place a killed process is held before it exits (v2 lets a
// frozen process die).
const freezer = "/sys/fs/cgroup/freezer";
const folder = join(freezer, `toolbelt-test-${process.pid}`);
const holdsKilled = process.platform === "linux" && process.getuid?.() === 0 && existsSync(join(freezer, "tasks"));

/** Holds `pid` frozen until `thaw`: a signal sent meanwhile waits, a SIGKILL too. */
function freeze(pid: number): void {
	mkdirSync(folder);
	writeFileSync(join(folder, "cgroup.procs"), String(pid));
	writeFileSync(join(folder, "freezer.state"), "FROZEN");
}

function thaw(): void {
	writeFileSync(join(folder, "freezer.state"), "THAWED");
}

afterEach(async () => {
	if (!existsSync(folder)) return;
	thaw();
	await eventually(() => {
		try {
			rmdirSync(folder);
			return true;
		} catch {
			return false;
		}
	});
});

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

	// Where this machine has a cgroup v1 freezer (as root), the pending SIGKILL is read from a
	// real process's stat.

	it.skipIf(!holdsKilled)("is read from /proc as killed while it waits to exit", async () => {
		const sleeper = spawn("sleep", ["100"], { stdio: "ignore" });
		const pid = sleeper.pid ?? 0;
		freeze(pid);
		expect(await eventually(() => readProcStat(pid)?.state === "D")).toBe(true);
		const frozen = readProcStat(pid);
		expect(frozen && isRunning(frozen)).toBe(true);
		sleeper.kill("SIGKILL");
		expect(await eventually(() => (readProcStat(pid)?.pendingSignals ?? 0) !== 0)).toBe(true);
		const killed = readProcStat(pid);
		expect(killed?.state).toBe("D");
		expect(killed && isRunning(killed)).toBe(false);
		thaw();
		expect(await eventually(() => readProcStat(pid) === undefined || readProcStat(pid)?.state === "Z")).toBe(true);
	});
});

// Disposal kills a background job and removes its cgroup; a job killed a moment ago may still be
// exiting (on a loaded machine, not yet scheduled to act on the kill) and keeps the cgroup
// populated, which the kernel then refuses to remove. The cgroup stayed until toolbelt's exit.
describe.skipIf(!holdsKilled || !cgroupsAvailable())("disposal of a job still exiting from its kill", () => {
	const tempDir = useTempDir();
	const bash = bashWith(localShellOperations);

	it("removes the job's cgroup once the job is gone", { timeout: 20_000 }, async () => {
		const outcome = await runTool(bash(tempDir()), { command: "sleep 60 & echo started" });
		const [job] = outcome.details?.backgroundPids ?? [];
		expect(job).toBeDefined();
		const directory = cgroupDirectory(cgroupOf(job ?? 0) ?? "");
		expect(directory && existsSync(directory)).toBe(true);
		freeze(job ?? 0);
		let settled = false;
		const disposed = disposeShellProcesses().then(() => {
			settled = true;
		});
		// Held until disposal has killed the rest of the cgroup (the output relay goes last) and tried
		// its removal, or has given up: the job alone is then left, killed, waiting to exit.
		const onlyTheJob = () => readFileSync(join(directory ?? "", "cgroup.procs"), "latin1").trim() === String(job);
		expect(await eventually(() => settled || onlyTheJob(), 10_000)).toBe(true);
		expect(((readProcStat(job ?? 0)?.pendingSignals ?? 0) & (1 << 8)) !== 0).toBe(true);
		await new Promise((resolve) => setTimeout(resolve, 100));
		thaw();
		await disposed;
		expect(directory && existsSync(directory)).toBe(false);
	});
});
