import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createPowerShellTool, createPowerShellToolDefinition } from "../../src/tools/powershell.js";
import { resolvePowerShell } from "../../src/tools/shell/resolve-shell.js";
import type { ShellOperations } from "../../src/tools/shell/types.js";
import { disposeShellProcesses } from "../../src/workspace/local/process/background-registry.js";
import { localShellOperations } from "../../src/workspace/local/shell/local-operations.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { writeFakePwsh } from "./shell/fake-pwsh.js";
import { runTool } from "./shell/run-tool.js";
import { killMarked, newMarker, processesWithMarker } from "./shell/survivors.js";

const markers: string[] = [];
afterEach(async () => {
	await disposeShellProcesses();
	for (const marker of markers.splice(0)) killMarked(marker);
});

interface Received {
	args: string[];
	script: string;
}

function received(text: string): Received {
	return JSON.parse(text.split("\n")[0] ?? "{}") as Received;
}

describe("powershell", () => {
	const tempDir = useTempDir();

	async function toolWithFakePwsh(extraEnv: Record<string, string> = {}) {
		const binDirectory = join(tempDir(), "bin");
		await mkdir(binDirectory);
		await writeFakePwsh(binDirectory);
		const env = { PATH: `${binDirectory}:${process.env.PATH ?? ""}`, ...extraEnv };
		return createPowerShellTool(tempDir(), { env });
	}

	it("passes the command with -NoProfile -NonInteractive -EncodedCommand, quotes and all", async () => {
		const command = `Write-Output "@{u}" $env:X 'it''s' "say \`"hi\`"" \\back\\slash; echo ü€😀 | % { $_ }`;
		const outcome = await runTool(await toolWithFakePwsh(), { command });
		expect(outcome.isError).toBe(false);
		const { args, script } = received(outcome.text);
		expect(args).toEqual(["-NoLogo", "-NoProfile", "-NonInteractive", "-EncodedCommand"]);
		expect(script.endsWith(`\n${command}`)).toBe(true);
		// UTF-8 output is forced before the command runs.
		expect(script.split("\n")[0]).toContain("[Console]::OutputEncoding = [System.Text.UTF8Encoding]::new($false)");
	});

	it("shares the runner: non-zero exit becomes an error with the output", async () => {
		const outcome = await runTool(await toolWithFakePwsh(), { command: "Write-Error 'bad'\nexit 7" });
		expect(outcome.isError).toBe(true);
		expect(outcome.details.exitCode).toBe(7);
		expect(outcome.text).toContain("Command exited with code 7");
		expect(received(outcome.text).script).toContain("Write-Error 'bad'");
	});

	it("shares the runner: a timeout kills the process tree", async () => {
		const { marker, env } = newMarker();
		markers.push(marker);
		const outcome = await runTool(await toolWithFakePwsh(env), { command: "Start-Sleep -Seconds 100", timeout: 1 });
		expect(outcome.ms).toBeLessThan(3000);
		expect(outcome.details.timedOut).toBe(true);
		expect(processesWithMarker(marker)).toEqual([]);
	});

	it("says a command too long for the command line was not run, and what to do instead", async () => {
		const outcome = await runTool(await toolWithFakePwsh(), { command: `Write-Output '${"x".repeat(200_000)}'` });
		expect(outcome.isError).toBe(true);
		expect(outcome.text).toMatch(
			/^The command is too long to pass to .*pwsh \(195\.\d KB\), so it was not run\. Write long content to a file with the write tool/,
		);
	});

	it("fails with a clear message where PowerShell is not installed", async () => {
		const emptyDirectory = join(tempDir(), "empty");
		await mkdir(emptyDirectory);
		const tool = createPowerShellTool(tempDir(), { env: { PATH: emptyDirectory } });
		const outcome = await runTool(tool, { command: "Get-Date" });
		expect(outcome.isError).toBe(true);
		expect(outcome.text).toContain("PowerShell is not installed: pwsh was not found on PATH");
		expect(outcome.text).toContain("Install PowerShell");
	});

	it("uses an explicit shell path", async () => {
		const binDirectory = join(tempDir(), "elsewhere");
		await mkdir(binDirectory);
		const path = await writeFakePwsh(binDirectory);
		const outcome = await runTool(createPowerShellTool(tempDir(), { shellPath: path }), { command: "Get-Location" });
		expect(received(outcome.text).script).toContain("Get-Location");
	});

	it("falls back to powershell.exe on Windows", async () => {
		const looked: string[] = [];
		const operations: ShellOperations = {
			...localShellOperations,
			findExecutable: async (name) => {
				looked.push(name);
				return name === "powershell.exe" ? "C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe" : undefined;
			},
		};
		const invocation = await resolvePowerShell({ command: "dir", options: {}, operations, env: {}, platform: "win32" });
		expect(looked).toEqual(["pwsh", "powershell.exe"]);
		expect(invocation.file).toMatch(/powershell\.exe$/);
		expect(invocation.args.slice(0, 4)).toEqual(["-NoLogo", "-NoProfile", "-NonInteractive", "-EncodedCommand"]);
		await expect(
			resolvePowerShell({ command: "dir", options: {}, operations, env: {}, platform: "linux" }),
		).rejects.toThrow(/PowerShell is not installed/);
	});

	it("has a sequential, destructive definition", () => {
		const definition = createPowerShellToolDefinition(tempDir());
		expect(definition.name).toBe("powershell");
		expect(definition.annotations?.readOnlyHint).toBe(false);
		expect(createPowerShellTool(tempDir()).executionMode).toBe("sequential");
	});
});
