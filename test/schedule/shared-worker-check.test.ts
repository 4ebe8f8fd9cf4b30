import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));

/** Runs the structure check that guards the shared workers (scripts/shared-worker-tests.mjs) on files. */
function check(...files: string[]) {
	const result = spawnSync(process.execPath, ["scripts/shared-worker-tests.mjs", ...files], {
		cwd: root,
		encoding: "utf8",
		timeout: 30_000,
	});
	return { status: result.status, printed: `${result.stdout}${result.stderr}` };
}

describe("the check that keeps process-wide state out of shared workers", () => {
	it("fails on a file that changes the process, naming each change, a helper's too", () => {
		const { status, printed } = check("test/schedule/fixtures/changes-the-process.ts");
		expect(status).toBe(1);
		const reported = printed
			.split("\n")
			.map((line) => /^ {2}test\/schedule\/fixtures\/([\w-]+\.ts:\d+): (.*)$/.exec(line)?.slice(1, 3).join(" "))
			.filter((line) => line !== undefined);
		expect(reported).toEqual([
			"changes-the-process.ts:6 calls vi.mock",
			"changes-the-process.ts:7 stubs TOOLBELT_SHELL_CONTAINMENT, read once per process",
			"changes-the-process.ts:8 stubs a variable it does not name",
			"changes-the-process.ts:9 spies on process",
			"changes-the-process.ts:10 assigns process.env.TOOLBELT_SHELL_CONTAINMENT",
			"changes-the-process.ts:11 assigns process.env.PATH",
			"changes-the-process.ts:12 deletes process.env.HOME",
			"changes-the-process.ts:13 Object.assign on process.env",
			"changes-the-process.ts:14 holds process.env under another name",
			"changes-the-process.ts:16 calls process.chdir",
			"changes-the-process.ts:17 calls process.umask",
			"changes-the-process.ts:18 assigns the global (globalThis as Record<string, unknown>).left",
			"changes-the-process.ts:19 patches Array.prototype.at",
			"changes-the-process-helper.ts:6 calls process.on",
		]);
		expect(printed).toContain("test/schedule/own-worker.json");
	});

	it("passes a file that only reads the process, gives children their own environment and stubs what ends with the file", () => {
		expect(check("test/schedule/fixtures/shares-a-worker.ts")).toEqual({
			status: 0,
			printed: "1 test files share workers and change no process-wide state\n",
		});
	});
});
