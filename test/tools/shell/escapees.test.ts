import { spawn } from "node:child_process";
import { randomInt } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { monotonicMs } from "../../../src/engine/clock.js";
import {
	findEscapedProcesses,
	findEscapedWithPs,
	parseElapsedSeconds,
	processStartTicks,
} from "../../../src/workspace/local/process/escapees.js";
import { eventually } from "./survivors.js";

const started: number[] = [];
afterEach(() => {
	for (const pid of started.splice(0)) {
		try {
			process.kill(pid, "SIGKILL");
		} catch {
			// Gone.
		}
	}
});

/**
 * Starts an orphan like a daemon does (new session, parent gone) and returns its command line.
 * `environment`: "cleared" (`env -i`, as an escapee leaves its marker behind), "kept" (this
 * process's environment, as a daemon someone else starts), or a marker the orphan carries.
 */
async function startOrphan(environment: "cleared" | "kept" | { marker: string }): Promise<string> {
	const sleep = `sleep 300.${randomInt(1_000_000, 9_999_999)}`;
	const prefix =
		environment === "cleared"
			? "env -i "
			: environment === "kept"
				? ""
				: `env TOOLBELT_SHELL_RUN=${environment.marker} `;
	const starter = spawn("/bin/sh", ["-c", `setsid ${prefix}${sleep} </dev/null >/dev/null 2>&1 & echo $!`], {
		stdio: ["ignore", "pipe", "ignore"],
	});
	let output = "";
	starter.stdout.on("data", (chunk: Buffer) => {
		output += chunk.toString();
	});
	await new Promise((resolve) => starter.once("close", resolve));
	started.push(Number(output.trim()));
	return sleep;
}

/** Waits (generously: `setsid` and `env` exec on a loaded machine) until the orphan runs its command. */
async function untilRunning(pid: number | undefined, command: string): Promise<boolean> {
	return await eventually(() => {
		try {
			return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").trim() === command;
		} catch {
			return false;
		}
	}, 15_000);
}

describe("escaped processes (the fallback without cgroups)", () => {
	it("reads ps elapsed times", () => {
		expect(parseElapsedSeconds("00:07")).toBe(7);
		expect(parseElapsedSeconds("  12:34")).toBe(754);
		expect(parseElapsedSeconds("01:00:00")).toBe(3600);
		expect(parseElapsedSeconds("2-03:04:05")).toBe(2 * 86400 + 3 * 3600 + 4 * 60 + 5);
		expect(parseElapsedSeconds("later")).toBeNaN();
	});

	it.skipIf(process.platform !== "linux")(
		"finds an orphan born since a given moment, through /proc and through ps",
		async () => {
			const sinceMs = monotonicMs();
			const sinceTicks = processStartTicks(process.pid);
			expect(sinceTicks).toBeDefined();
			const sleep = await startOrphan("cleared");
			// Started after this process, but a tick-exact "since" is its own start: take the orphan's.
			const [pid] = started;
			const since = processStartTicks(pid);
			// The scan reads the command line: wait until `setsid` and `env` have exec'd the sleep.
			expect(await untilRunning(pid, sleep)).toBe(true);
			expect(findEscapedProcesses({ sinceTicks: since ?? 0, known: [], cwd: process.cwd() })).toContainEqual({
				pid,
				command: sleep,
			});
			expect(findEscapedProcesses({ sinceTicks: since ?? 0, known: [] })).toContainEqual({ pid, command: sleep });
			expect(findEscapedWithPs({ sinceMs, known: [] })).toContainEqual({ pid, command: sleep });
			// Known processes, and those born before the moment, are not escapees.
			expect(
				findEscapedProcesses({ sinceTicks: since ?? 0, known: [pid ?? 0] }).map((found) => found.pid),
			).not.toContain(pid);
			expect(findEscapedProcesses({ sinceTicks: (since ?? 0) + 1, known: [] }).map((found) => found.pid)).not.toContain(
				pid,
			);
		},
	);

	it.skipIf(process.platform !== "linux")(
		"claims an orphan only on evidence that the call started it: its marker, or a cleared environment in its folder",
		async () => {
			const marker = `escapees-${randomInt(1_000_000, 9_999_999)}`;
			const foreign = await startOrphan("kept");
			const carrying = await startOrphan({ marker });
			const cleared = await startOrphan("cleared");
			const [foreignPid, carryingPid, clearedPid] = started;
			expect(await untilRunning(foreignPid, foreign)).toBe(true);
			expect(await untilRunning(carryingPid, carrying)).toBe(true);
			expect(await untilRunning(clearedPid, cleared)).toBe(true);
			const since = processStartTicks(foreignPid) ?? 0;
			const claimed = (search: { marker?: string; cwd?: string }) =>
				findEscapedProcesses({ sinceTicks: since, known: [], ...search }).map((found) => found.pid);
			// A daemon with an environment of its own (an ssh ControlMaster, another call's job) is not the call's.
			expect(claimed({ marker, cwd: process.cwd() })).not.toContain(foreignPid);
			expect(claimed({ marker, cwd: process.cwd() })).toEqual(expect.arrayContaining([carryingPid, clearedPid]));
			expect(claimed({ marker: `${marker}-other` })).not.toContain(carryingPid);
			// A cleared environment counts only inside the call's folder.
			expect(claimed({ marker, cwd: "/nonexistent-call-folder" })).not.toContain(clearedPid);
		},
	);
});
