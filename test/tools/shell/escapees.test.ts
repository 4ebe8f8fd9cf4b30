import { spawn } from "node:child_process";
import { randomInt } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import {
	findEscapedProcesses,
	findEscapedWithPs,
	parseElapsedSeconds,
	processStartTicks,
} from "../../../src/tools/shell/escapees.js";
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

/** Starts an orphan like a daemon does (new session, parent gone) and returns its command line. */
async function startOrphan(): Promise<string> {
	const sleep = `sleep 300.${randomInt(1_000_000, 9_999_999)}`;
	const starter = spawn("/bin/sh", ["-c", `setsid ${sleep} </dev/null >/dev/null 2>&1 & echo $!`], {
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
			const sinceMs = Date.now();
			const sinceTicks = processStartTicks(process.pid);
			expect(sinceTicks).toBeDefined();
			const sleep = await startOrphan();
			// Started after this process, but a tick-exact "since" is its own start: take the orphan's.
			const [pid] = started;
			const since = processStartTicks(pid);
			expect(
				await eventually(() =>
					findEscapedProcesses({ sinceTicks: since ?? 0, known: [] }).some((found) => found.pid === pid),
				),
			).toBe(true);
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
});
