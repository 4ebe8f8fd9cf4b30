import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { stopProcess } from "../../../../src/workspace/local/index.js";
import { eventually } from "../../../tools/shell/survivors.js";

function childrenOf(pid: number): string[] {
	try {
		return readFileSync(`/proc/${pid}/task/${pid}/children`, "latin1").trim().split(" ").filter(Boolean).sort();
	} catch {
		return [];
	}
}

describe("stopProcess", () => {
	it.skipIf(process.platform !== "linux")(
		"leaves a process that forks without end stopped, with the children it has and no more",
		async () => {
			const forker = spawn("sh", ["-c", "while :; do sleep 30 & done"], { stdio: "ignore", detached: true });
			const pid = forker.pid as number;
			try {
				expect(await eventually(() => childrenOf(pid).length > 10, 10_000)).toBe(true);
				expect(stopProcess(pid)).toBe(true);
				expect(readFileSync(`/proc/${pid}/stat`, "latin1").split(") ")[1]?.[0]).toBe("T");
				const listed = childrenOf(pid);
				await sleep(200);
				expect(childrenOf(pid)).toEqual(listed);
			} finally {
				process.kill(-pid, "SIGKILL");
			}
		},
	);

	it("sends nothing to an id that names no process toolbelt started", () => {
		expect(stopProcess(0)).toBe(false);
		expect(stopProcess(-1)).toBe(false);
		expect(stopProcess(process.pid)).toBe(false);
	});
});
