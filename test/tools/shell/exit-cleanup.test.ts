import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it, type TestContext } from "vitest";
import { ensureBuiltCli } from "../../cli/helpers/cli-binary.js";
import { commandProcessesWithMarker, eventually, killMarked, newMarker, processesWithMarker } from "./survivors.js";

const fixture = fileURLToPath(new URL("./fixtures/leave-background.mjs", import.meta.url));
const repositoryRoot = fileURLToPath(new URL("../../../", import.meta.url));
async function startToolbelt(mode: string, onTestFinished: TestContext["onTestFinished"]) {
	const { marker } = newMarker();
	// Per test, from the test's own context: these tests run concurrently, and one test's cleanup
	// must not kill the processes another test is still checking (a global hook may fire for another test).
	onTestFinished(() => killMarked(marker));
	ensureBuiltCli();
	const child = spawn(process.execPath, [fixture, mode, marker], {
		cwd: repositoryRoot,
		stdio: ["pipe", "pipe", "inherit"],
	});
	onTestFinished(() => {
		if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
	});
	let output = "";
	child.stdout.on("data", (chunk: Buffer) => {
		output += chunk.toString();
	});
	expect(await eventually(() => output.includes("\n"), 30_000)).toBe(true);
	const reported = JSON.parse(output.split("\n")[0] ?? "{}") as { backgroundPids: number[]; fullOutputPath: string };
	return { child, marker, reported };
}

describe("shell processes never outlive toolbelt", () => {
	it.concurrent.for(["exit", "SIGINT", "SIGTERM"])(
		"kills background processes and removes output files on %s",
		{ timeout: 40_000 },
		async (mode, { onTestFinished }) => {
			const { child, marker, reported } = await startToolbelt(mode, onTestFinished);
			expect(reported.backgroundPids.length).toBe(2);
			expect(commandProcessesWithMarker(marker).sort()).toEqual([...reported.backgroundPids].sort());
			expect(existsSync(reported.fullOutputPath)).toBe(true);

			const exited = once(child, "exit");
			if (mode === "exit") child.stdin.write("go\n");
			else child.kill(mode as NodeJS.Signals);
			const [code, signal] = await exited;
			// A signal still ends toolbelt the way it would have ended without the cleanup.
			if (mode === "exit") expect(code).toBe(0);
			else expect(signal).toBe(mode);

			expect(await eventually(() => processesWithMarker(marker).length === 0)).toBe(true);
			expect(existsSync(reported.fullOutputPath)).toBe(false);
		},
	);
});
