import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it, vi } from "vitest";
import { main } from "../../src/cli/main.js";
import { createSafetyLayer, isShellParserLoaded } from "../../src/safety/index.js";
import { SOON_LOAD_DELAY_MS } from "../../src/safety/shell-policy/parser.js";
import { createBashTool } from "../../src/tools/bash.js";
import { createMemoryIO } from "../cli/helpers/memory-io.js";
import { openAIStream, useSseServer } from "../helpers/sse-server.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { waitFor } from "../mcp/helpers.js";
import { runCall, textOf } from "./run-calls.js";

// The parser is loaded once per process: these tests need a process that has judged no command
// (own worker), and the ones that must not load it run before the one that does.
describe("the shell parser loads in the pause after the tools are made (a command tool among them)", () => {
	const tempDir = useTempDir();

	it("not for tools that run no command, and never by a timer that keeps the process alive", async () => {
		const layer = await createSafetyLayer({ cwd: tempDir(), homeDir: tempDir(), sandbox: false });
		const timers = vi.spyOn(globalThis, "setTimeout");
		try {
			layer.prepareFor(["read", "grep", "ls", "write", "edit", "find"]);
			expect(timers).not.toHaveBeenCalled();
			layer.prepareFor(["read", "Bash"]);
			expect(timers).toHaveBeenCalledTimes(1);
			const timer = timers.mock.results[0]?.value as NodeJS.Timeout;
			expect(timer.hasRef()).toBe(false);
			// Stopped here: the run below must be what loads it.
			clearTimeout(timer);
		} finally {
			timers.mockRestore();
		}
		await sleep(SOON_LOAD_DELAY_MS + 1_500);
		expect(isShellParserLoaded("bash")).toBe(false);
	});
});

describe("a command of plain words is judged without the parser", () => {
	const tempDir = useTempDir();

	it("by the rules, as the parser would read it; a command that needs the parser loads it", async () => {
		const project = join(tempDir(), "project");
		await mkdir(project);
		const layer = await createSafetyLayer({
			cwd: project,
			homeDir: tempDir(),
			sandbox: false,
			mode: "yolo",
			rules: { deny: ["bash(rm:*)"] },
		});
		const tools = [createBashTool(project)];
		// A plain command the deny rule names, one behind a wrapper, one it allows: no parser yet.
		expect(textOf(await runCall(tools, layer.hooks, "bash", { command: "rm -rf build" }))).toMatch(
			/Permission denied.*"bash\(rm:\*\)"/s,
		);
		expect(textOf(await runCall(tools, layer.hooks, "bash", { command: "timeout 5 rm -rf build" }))).toMatch(
			/Permission denied.*"bash\(rm:\*\)"/s,
		);
		expect(textOf(await runCall(tools, layer.hooks, "bash", { command: "echo plain" }))).toBe("plain");
		expect(isShellParserLoaded("bash")).toBe(false);
		// A pipeline needs the parser: the call loads it and is judged by it.
		expect(textOf(await runCall(tools, layer.hooks, "bash", { command: "echo x | rm -rf build" }))).toMatch(
			/Permission denied.*"bash\(rm:\*\)"/s,
		);
		expect(isShellParserLoaded("bash")).toBe(true);
	});
});

describe("toolbelt run prepares the judging of its command tools as the agent is made", () => {
	const tempDir = useTempDir();
	const server = useSseServer();

	it("loads bash's parser though the model called no tool", async () => {
		server.push({ events: openAIStream([{ text: "Nothing to run." }, { finish: "stop" }]) });
		const { io, stdout } = createMemoryIO({ cwd: tempDir() });
		const flags = ["--provider", "openai", "--base-url", server.openaiBaseUrl, "--model", "test-model"];
		expect(await main(["run", ...flags, "--tools", "bash,read", "--no-record", "hello"], io)).toBe(0);
		expect(stdout()).toBe("Nothing to run.\n");
		await waitFor(() => isShellParserLoaded("bash"), 20_000);
		expect(isShellParserLoaded("powershell")).toBe(false);
	});
});

describe("toolbelt mcp prepares the judging of its command tools after the handshake", () => {
	const tempDir = useTempDir();

	function request(stdin: PassThrough, id: number, method: string, params: object = {}) {
		stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
	}

	it("a server of powershell's tool loads its parser and opens its checkpoints with no call; one of read tools does neither", async () => {
		// bash's parser is loaded by the run above; PowerShell's is what this server's first call would wait for.
		for (const tools of ["ls,read", "powershell,read"]) {
			const stdin = new PassThrough();
			// Outside the workspace: a checkpoint store inside it is refused.
			const state = join(tempDir(), `state-${tools.replace(",", "-")}`);
			const project = join(tempDir(), `project-${tools.replace(",", "-")}`);
			await mkdir(project);
			const memory = createMemoryIO({ stdinStream: stdin, cwd: project, env: { XDG_STATE_HOME: state } });
			const exit = main(["mcp", "--tools", tools, "--no-record"], memory.io);
			request(stdin, 1, "initialize", {
				protocolVersion: "2025-06-18",
				capabilities: {},
				clientInfo: { name: "memory", version: "1" },
			});
			await waitFor(() => memory.stdout().includes('"id":1'), 10_000);
			const checkpoints = join(state, "toolbelt", "checkpoints");
			if (tools === "ls,read") {
				await sleep(SOON_LOAD_DELAY_MS + 1_500);
				expect(isShellParserLoaded("powershell")).toBe(false);
				// Only read tools: no checkpoints at all.
				expect(existsSync(checkpoints)).toBe(false);
			} else {
				await waitFor(() => isShellParserLoaded("powershell"), 30_000);
				// The checkpoints a first change would open are open too, with no call made.
				await waitFor(() => existsSync(checkpoints), 30_000);
			}
			stdin.end();
			expect(await exit).toBe(0);
		}
	}, 60_000);
});
