import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { executeToolCalls } from "../../src/engine/execute-tool-calls.js";
import { bashSchema, createBashTool, createBashToolDefinition } from "../../src/tools/bash.js";
import { resolveBashShell } from "../../src/tools/shell/resolve-shell.js";
import type { ShellExecRequest, ShellOperations, ShellToolDetails } from "../../src/tools/shell/types.js";
import { disposeShellProcesses } from "../../src/workspace/local/process/background-registry.js";
import { localShellOperations } from "../../src/workspace/local/shell/local-operations.js";
import { resultText } from "../helpers/results.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { runTool } from "./shell/run-tool.js";

afterEach(async () => {
	await disposeShellProcesses();
});

describe("bash: definition", () => {
	const tempDir = useTempDir();

	it("builds the definition and the tool from one schema", () => {
		const definition = createBashToolDefinition(tempDir());
		const tool = createBashTool(tempDir());
		expect(definition.name).toBe("bash");
		expect(definition.parameters).toBe(bashSchema);
		expect(tool.parameters).toBe(bashSchema);
		expect(tool.executionMode).toBe("sequential");
		expect(definition.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
		expect(Object.keys(bashSchema.properties).sort()).toEqual([
			"command",
			"description",
			"run_in_background",
			"timeout",
			"tty",
		]);
	});

	it("runs through the engine: coerced timeout, and an error result that keeps its details", async () => {
		const tool = createBashTool(tempDir());
		const { messages } = await executeToolCalls({
			tools: [tool],
			toolCalls: [
				{ type: "toolCall", id: "1", name: "bash", arguments: { command: "echo hello", timeout: "5" } },
				{
					type: "toolCall",
					id: "2",
					name: "bash",
					arguments: { command: "echo failing; exit 2", description: "fails" },
				},
			],
		});
		expect(messages[0]?.isError).toBe(false);
		expect(messages[0]?.content).toEqual([{ type: "text", text: "hello" }]);
		expect((messages[0]?.details as ShellToolDetails | undefined)?.timeoutSeconds).toBe(5);
		expect(messages[1]?.isError).toBe(true);
		const errorText = resultText(messages[1]!);
		expect(errorText).toContain("failing");
		expect(errorText).toContain("Command exited with code 2");
		expect((messages[1]?.details as ShellToolDetails | undefined)?.exitCode).toBe(2);
	});
});

describe("bash: argument repair", () => {
	const tempDir = useTempDir();

	it("accepts cmd/script for command and a timeout with a unit", async () => {
		const tool = createBashTool(tempDir());
		expect(tool.prepareArguments?.({ cmd: "ls", timeout: "30s" })).toEqual({ command: "ls", timeout: 30 });
		expect(tool.prepareArguments?.({ script: "ls", timeout: "2m" })).toEqual({ command: "ls", timeout: 120 });
		expect(tool.prepareArguments?.({ command: "ls", timeout: "1500ms" })).toEqual({ command: "ls", timeout: 1.5 });
		expect(tool.prepareArguments?.({ command: "ls", cmd: "rm -rf /" })).toEqual({ command: "ls", cmd: "rm -rf /" });
		expect(tool.prepareArguments?.({ command: "ls", timeout: null, description: null })).toEqual({ command: "ls" });
		const { messages } = await executeToolCalls({
			tools: [tool],
			toolCalls: [{ type: "toolCall", id: "1", name: "bash", arguments: { cmd: "echo repaired", timeout: "10s" } }],
		});
		expect(messages[0]?.content).toEqual([{ type: "text", text: "repaired" }]);
	});

	it("keeps the cancellation message and details when the engine's run is aborted", async () => {
		const controller = new AbortController();
		const started = Date.now();
		setTimeout(() => controller.abort(), 300);
		const { messages } = await executeToolCalls({
			tools: [createBashTool(tempDir())],
			toolCalls: [{ type: "toolCall", id: "1", name: "bash", arguments: { command: "echo started; sleep 100" } }],
			signal: controller.signal,
		});
		expect(Date.now() - started).toBeLessThan(1500);
		expect(messages[0]?.isError).toBe(true);
		const text = resultText(messages[0]!);
		expect(text).toContain("started");
		expect(text).toContain("cancelled by the user");
		expect((messages[0]?.details as ShellToolDetails | undefined)?.cancelled).toBe(true);
	});
});

describe("bash: options", () => {
	const tempDir = useTempDir();

	it("runs in the tool's cwd with extra env and a command prefix", async () => {
		const tool = createBashTool(tempDir(), { env: { GREETING: "hi" }, commandPrefix: "SUFFIX=there" });
		const outcome = await runTool(tool, { command: 'echo "$GREETING $SUFFIX $(pwd)"' });
		expect(outcome.text).toBe(`hi there ${tempDir()}`);
	});

	it("uses the default timeout when none is given", async () => {
		const outcome = await runTool(createBashTool(tempDir(), { defaultTimeoutSeconds: 0.5 }), { command: "sleep 30" });
		expect(outcome.details.timedOut).toBe(true);
		expect(outcome.details.timeoutSeconds).toBe(0.5);
		expect(outcome.ms).toBeLessThan(3000);
	});

	it("lowers a timeout above the maximum to the maximum", async () => {
		const outcome = await runTool(createBashTool(tempDir(), { maxTimeoutSeconds: 1 }), {
			command: "sleep 30",
			timeout: 500,
		});
		expect(outcome.details.timedOut).toBe(true);
		expect(outcome.details.timeoutSeconds).toBe(1);
		expect(outcome.text).toContain("at most 1");
		expect(outcome.ms).toBeLessThan(3500);
	});

	it("runs a command longer than the kernel allows for one argument, with stdin still empty", async () => {
		const body = "é".repeat(100_000);
		const command = `cat > big.txt <<'EOF'\n${body}\nEOF\nwc -c < big.txt; cat; read line || echo "stdin empty"; exit 3`;
		const outcome = await runTool(createBashTool(tempDir()), { command, timeout: 20 });
		expect(outcome.text).toBe("200001\nstdin empty\n\nCommand exited with code 3");
		expect(outcome.ms).toBeLessThan(5000);
	});

	it("an unbounded maximum does not turn a huge timeout into an instant one", async () => {
		const tool = createBashTool(tempDir(), { maxTimeoutSeconds: Number.POSITIVE_INFINITY });
		const outcome = await runTool(tool, { command: "sleep 0.2; echo ok", timeout: 1e9 });
		expect(outcome.isError).toBe(false);
		expect(outcome.text).toBe("ok");
		expect(outcome.details.timeoutSeconds).toBeLessThan(2 ** 31 / 1000);
	});

	it("fails clearly when the working directory is missing", async () => {
		const missing = join(tempDir(), "gone");
		const outcome = await runTool(createBashTool(missing), { command: "echo hi" });
		expect(outcome.isError).toBe(true);
		expect(outcome.text).toContain(`The working directory ${missing} does not exist`);
	});
});

describe("bash: shell resolution", () => {
	const tempDir = useTempDir();

	it("prefers /bin/bash", async () => {
		const outcome = await runTool(createBashTool(tempDir()), { command: 'echo "$0 $BASH_VERSION" | cut -c1-12' });
		expect(outcome.text).toMatch(/^\/bin\/bash \d/);
	});

	it("uses an explicit shell path", async () => {
		const outcome = await runTool(createBashTool(tempDir(), { shellPath: "/bin/sh" }), { command: 'echo "$0"' });
		expect(outcome.text).toBe("/bin/sh");
	});

	it("rejects a configured shell that does not exist", async () => {
		const outcome = await runTool(createBashTool(tempDir(), { shellPath: join(tempDir(), "no-shell") }), {
			command: "true",
		});
		expect(outcome.isError).toBe(true);
		expect(outcome.text).toMatch(/configured shell .*no-shell" was not found/);
	});

	it("looks for /bin/bash, then bash on PATH, then sh", async () => {
		const looked: string[] = [];
		const available = new Set(["sh"]);
		const operations: ShellOperations = {
			...localShellOperations,
			findExecutable: async (name) => {
				looked.push(name);
				return available.has(name) ? `/somewhere/${name}` : undefined;
			},
		};
		const found = await resolveBashShell({ command: "ls", options: {}, operations, env: {} });
		expect(looked).toEqual(["/bin/bash", "bash", "/bin/sh", "sh"]);
		expect(found).toEqual({ file: "/somewhere/sh", args: ["-c", "ls"] });
		available.clear();
		await expect(resolveBashShell({ command: "ls", options: {}, operations, env: {} })).rejects.toThrow(
			/No shell was found/,
		);
	});
});

describe("bash: startup files", () => {
	const tempDir = useTempDir();

	it("never sources ~/.bashrc, even when bash would take its socket stdin for an ssh session", async () => {
		// With SHLVL unset (an MCP client's minimal environment) and a socket on stdin (Node's pipes),
		// bash reads ~/.bashrc unless told not to; a slow or blocking rc file would then hang every call.
		const home = tempDir();
		await writeFile(join(home, ".bashrc"), `touch "${join(home, "bashrc-ran")}"\n`);
		vi.stubEnv("HOME", home);
		vi.stubEnv("SHLVL", undefined);
		try {
			const outcome = await runTool(createBashTool(home), { command: "echo ran" });
			expect(outcome.text).toContain("ran");
		} finally {
			vi.unstubAllEnvs();
		}
		expect(existsSync(join(home, "bashrc-ran"))).toBe(false);
	});
});

describe("bash: custom operations (a remote executor)", () => {
	const tempDir = useTempDir();

	it("streams through any executor and maps its outcome", async () => {
		const requests: ShellExecRequest[] = [];
		const remote: ShellOperations = {
			isDirectory: async (path) => path === "/remote/project",
			findExecutable: async (name) => (name === "/bin/bash" ? name : undefined),
			exec: async (request) => {
				requests.push(request);
				for (let line = 1; line <= 3000; line++) await request.onData(Buffer.from(`remote ${line}\n`));
				return { exitCode: 1, signal: null, timedOut: false, aborted: false, backgroundPids: [] };
			},
		};
		const outcome = await runTool(createBashTool("/remote/project", { operations: remote }), {
			command: "make",
			timeout: 7,
		});
		expect(requests[0]).toMatchObject({
			file: "/bin/bash",
			args: ["--norc", "--noprofile", "-c", "make"],
			cwd: "/remote/project",
			timeoutMs: 7000,
		});
		expect(requests[0]?.env.GIT_TERMINAL_PROMPT).toBe("0");
		expect(outcome.isError).toBe(true);
		expect(outcome.text).toContain("remote 3000\n\n[Output truncated: showing the last 2000 of 3000 lines");
		expect(outcome.text).toContain("Command exited with code 1");
		expect(outcome.details.truncation.originalLines).toBe(3000);
		const missing = await runTool(createBashTool(join(tempDir(), "x"), { operations: remote }), { command: "make" });
		expect(missing.text).toMatch(/does not exist/);
	});

	it("lets the executor prepare a call's shell as the tool is created and before the folder check, not for a pseudo-terminal", async () => {
		const steps: string[] = [];
		const operations: ShellOperations = {
			prepare: (cwd) => void steps.push(`prepare ${cwd}`),
			isDirectory: async (path) => {
				steps.push(`isDirectory ${path}`);
				return true;
			},
			findExecutable: async (name) => name,
			exec: async (request) => {
				steps.push(request.tty ? "exec tty" : "exec");
				return { exitCode: 0, signal: null, timedOut: false, aborted: false, backgroundPids: [] };
			},
		};
		const tool = createBashTool("/remote/project", { operations });
		expect(steps).toEqual(["prepare /remote/project"]);
		await runTool(tool, { command: "make" });
		await tool.execute("call", { command: "top", tty: true }, undefined);
		expect(steps).toEqual([
			"prepare /remote/project",
			"prepare /remote/project",
			"isDirectory /remote/project",
			"exec",
			"isDirectory /remote/project",
			"exec tty",
		]);
	});
});
