import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import { afterEach, describe, expect, it, vi } from "vitest";
import { removeOnceEmptied } from "../../../../src/workspace/local/process/cgroup-members.js";
import {
	findTreeProcesses,
	PROCESS_MARKER_VARIABLE,
	type ProcessTree,
	terminateTree,
} from "../../../../src/workspace/local/process/process-tree.js";

const hourMs = 3_600_000;
/** Far beyond each wait's own bound, far below the hour the clock goes back. */
const boundMs = 5000;

/**
 * Sets the wall clock back an hour right after its next reading, as an NTP step or a person might
 * while a wait runs: a deadline taken from `Date.now()` then lies an hour ahead.
 */
function setClockBackAfterNextReading(): void {
	const realNow = Date.now;
	let readings = 0;
	vi.spyOn(Date, "now").mockImplementation(() => realNow.call(Date) - (readings++ === 0 ? 0 : hourMs));
}

/** `wait`'s value, or "still waiting" after `boundMs`. */
function withinBound<T>(wait: Promise<T>): Promise<T | "still waiting"> {
	return Promise.race([wait, delay(boundMs).then(() => "still waiting" as const)]);
}

let shell: ChildProcess | undefined;

afterEach(() => {
	vi.restoreAllMocks();
	if (shell?.pid !== undefined && shell.exitCode === null && shell.signalCode === null) {
		try {
			process.kill(-shell.pid, "SIGKILL");
		} catch {
			// Gone already.
		}
	}
	shell = undefined;
});

/** A shell that ignores SIGTERM, with two sleeps that inherit that, in a process group of its own. */
async function startTreeIgnoringTerm(): Promise<ProcessTree> {
	const marker = randomUUID();
	shell = spawn("/bin/sh", ["-c", "trap '' TERM; sleep 60 & sleep 60 & wait"], {
		detached: true,
		stdio: "ignore",
		env: { ...process.env, [PROCESS_MARKER_VARIABLE]: marker },
	});
	const pid = shell.pid as number;
	const tree: ProcessTree = { groupId: pid, rootPid: pid, marker };
	// The sleeps start after the trap is set: a SIGTERM sent before would end the shell at once.
	for (let tries = 0; findTreeProcesses(tree).length < 3; tries++) {
		if (tries > 500) throw new Error("the shell and its two sleeps did not start");
		await delay(10);
	}
	return tree;
}

describe("process waits under a wall clock set back mid-wait", () => {
	it.skipIf(process.platform === "win32")(
		"terminateTree still ends a tree that ignores SIGTERM after its grace",
		async () => {
			const tree = await startTreeIgnoringTerm();
			setClockBackAfterNextReading();
			const started = performance.now();
			expect(await withinBound(terminateTree(tree, { graceMs: 200 }))).toBeUndefined();
			expect(performance.now() - started).toBeLessThan(boundMs);
			expect(findTreeProcesses(tree)).toEqual([]);
		},
		boundMs * 3,
	);

	it("removeOnceEmptied still gives up after its wait", async () => {
		setClockBackAfterNextReading();
		expect(await withinBound(removeOnceEmptied(() => false, 50))).toBe(false);
	});
});
