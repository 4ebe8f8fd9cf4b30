import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { signalProcess, signalProcessGroup } from "../../../src/workspace/local/index.js";

function ownGroupId(): number {
	const stat = readFileSync("/proc/self/stat", "latin1");
	return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
}

afterEach(() => {
	vi.restoreAllMocks();
});

describe("signalProcess and signalProcessGroup: the one way toolbelt signals what it started", () => {
	it("send nothing for ids kill(2) reads as this process's group or every process, nor to toolbelt itself", () => {
		const kill = vi.spyOn(process, "kill");
		// SIGCONT: were one let through, it would change nothing anywhere.
		for (const pid of [0, -1, -7, Number("") /* an empty line */, Number.NaN, 1.5, process.pid]) {
			expect(signalProcess(pid, "SIGCONT")).toBe(false);
			expect(signalProcessGroup(pid, "SIGCONT")).toBe(false);
		}
		expect(signalProcessGroup(ownGroupId(), "SIGCONT")).toBe(false);
		expect(kill).not.toHaveBeenCalled();
	});

	it("signals a child's process group, and says when nothing of it is left", async () => {
		const child = spawn("sh", ["-c", "sleep 30 & wait"], { detached: true, stdio: "ignore" });
		const pid = child.pid as number;
		expect(signalProcessGroup(pid, "SIGKILL")).toBe(true);
		const [, signal] = await once(child, "exit");
		expect(signal).toBe("SIGKILL");
		// The group's sleep died with it: no process of the group is left to signal.
		await vi.waitFor(() => expect(signalProcessGroup(pid, "SIGCONT")).toBe(false), { timeout: 5000 });
		expect(signalProcess(pid, "SIGCONT")).toBe(false);
	});
});
