import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { prepareAhead } from "../../../src/tools/registry/prepare-ahead.js";
import { disposeShellProcesses } from "../../../src/workspace/local/index.js";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("prepareAhead", () => {
	it("prepares at once without a delay", () => {
		let prepared = 0;
		prepareAhead(() => prepared++);
		prepareAhead(() => prepared++, 0);
		expect(prepared).toBe(2);
	});

	it("prepares the given time later", async () => {
		let prepared = 0;
		prepareAhead(() => prepared++, 40);
		expect(prepared).toBe(0);
		await pause(200);
		expect(prepared).toBe(1);
	});

	it("waits on a timer that keeps no process alive", () => {
		const module = new URL("../../../src/tools/registry/prepare-ahead.ts", import.meta.url).href;
		const script = `import(${JSON.stringify(module)}).then(({ prepareAhead }) => prepareAhead(() => console.log("prepared"), 60000))`;
		// Held by the timer, it would run a minute and be stopped at 30 s.
		const result = spawnSync(process.execPath, ["--import", "tsx", "-e", script], {
			encoding: "utf8",
			timeout: 30_000,
		});
		expect(result.stderr).toBe("");
		expect(result.signal).toBeNull();
		expect(result.status).toBe(0);
		expect(result.stdout).toBe("");
	});

	it("drops a preparation still waiting when a call begins: the call starts what it needs itself", async () => {
		let prepared = 0;
		const ahead = prepareAhead(() => prepared++, 40);
		ahead.beforeCall();
		ahead.beforeCall();
		await pause(200);
		expect(prepared).toBe(0);
	});

	it("drops a preparation still waiting when the shell processes are disposed of (a server's close)", async () => {
		let prepared = 0;
		prepareAhead(() => prepared++, 40);
		await disposeShellProcesses();
		await pause(200);
		expect(prepared).toBe(0);
	});
});
