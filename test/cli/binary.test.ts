import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { openAIStream, type SseServer, startSseServer } from "../helpers/sse-server.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { CliProcesses, cleanEnv, ensureBuiltCli, moduleBinPath, repositoryRoot } from "./helpers/cli-binary.js";

const version = (JSON.parse(readFileSync(`${repositoryRoot}package.json`, "utf8")) as { version: string }).version;

describe("the built toolbelt binary", () => {
	const tempDir = useTempDir();
	const processes = new CliProcesses();
	let server: SseServer | undefined;
	beforeAll(() => {
		ensureBuiltCli();
	});
	afterEach(async () => {
		processes.killAll();
		await server?.close();
		server = undefined;
	});

	it("prints --version fast", async () => {
		const started = performance.now();
		const result = await processes.run(["--version"]);
		const elapsed = performance.now() - started;
		expect(result).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: "" });
		// Generous for a loaded 2-core machine; the lazy loading itself is proven below.
		expect(elapsed).toBeLessThan(3000);
	});

	it("loads only the CLI's own small modules for --version and --help", () => {
		for (const argv of [["--version"], ["--help"], ["run", "--help"]]) {
			const result = spawnSync(
				process.execPath,
				["--import", new URL("./fixtures/trace-imports.mjs", import.meta.url).href, moduleBinPath, ...argv],
				{ encoding: "utf8", env: cleanEnv() },
			);
			expect(result.status).toBe(0);
			const modules = result.stderr
				.split("\n")
				.filter((line) => line.startsWith("[import] "))
				.map((line) => line.slice("[import] ".length));
			// The trace works: it sees the entry (which imports little else: start.cjs is required).
			expect(modules.some((url) => url.endsWith("/dist/cli/bin.js"))).toBe(true);
			// No SDK, sharp, tools, agent or engine: only dist/cli/*.js and Node built-ins.
			const heavy = modules.filter((url) => !url.startsWith("node:") && !/\/dist\/cli\/[a-z-]+\.js$/.test(url));
			expect(heavy, argv.join(" ")).toEqual([]);
		}
	});

	it("runs tool and tools without any provider", async () => {
		await writeFile(join(tempDir(), "a.txt"), "first line\n");
		const read = await processes.run(["tool", "read", '{"path": "a.txt"}'], { cwd: tempDir() });
		expect(read.code).toBe(0);
		expect(read.stdout).toContain("first line");
		const tools = await processes.run(["tools", "--format", "anthropic"]);
		expect(tools.code).toBe(0);
		expect((JSON.parse(tools.stdout) as { name: string }[]).map((tool) => tool.name)).toContain("edit");
	});

	it("exits 2 on bad JSON and unknown flags, and explains provider setup", async () => {
		const badJson = await processes.run(["tool", "ls", "{nope"]);
		expect(badJson.code).toBe(2);
		expect(badJson.stderr).toContain("not valid JSON");
		const unknownFlag = await processes.run(["tools", "--fromat", "openai"]);
		expect(unknownFlag.code).toBe(2);
		expect(unknownFlag.stderr).toContain("Did you mean '--format'?");
		const noProvider = await processes.run(["run", "hello"]);
		expect(noProvider.code).toBe(2);
		expect(noProvider.stderr).toContain("--provider openai --base-url http://localhost:11434/v1 --model");
	});

	it("runs a prompt from stdin against an OpenAI-compatible server", async () => {
		server = await startSseServer([
			{
				events: openAIStream([
					{ toolCall: { index: 0, id: "call_1", name: "bash", arguments: '{"command": "echo from-bash"}' } },
					{ finish: "tool_calls" },
				]),
			},
			{ events: openAIStream([{ text: "The command printed from-bash." }, { finish: "stop" }]) },
		]);
		// Print mode cannot ask: the command needs an allow rule (or --mode yolo).
		const flags = [
			"--provider",
			"openai",
			"--base-url",
			server.openaiBaseUrl,
			"--model",
			"m",
			"--allow",
			"bash(echo:*)",
		];
		const result = await processes.run(["run", ...flags], { cwd: tempDir(), input: "Run echo\n" });
		expect(result.stderr).toMatch(/● bash echo from-bash {2}✓/);
		expect(result).toMatchObject({ code: 0, stdout: "The command printed from-bash.\n" });
		expect(server.requests[1]?.body.messages.at(-1).content).toContain("from-bash");
	});

	it("exits 130 on SIGINT, cancelling the request", async () => {
		server = await startSseServer([{ events: openAIStream([{ text: "Let me" }], { done: false }), hang: true }]);
		const flags = ["--provider", "openai", "--base-url", server.openaiBaseUrl, "--model", "m"];
		const { child, done } = processes.start(["run", ...flags, "hello"], { cwd: tempDir() });
		const deadline = Date.now() + 15_000;
		while (server.requests.length === 0 && Date.now() < deadline)
			await new Promise((resolve) => setTimeout(resolve, 25));
		await new Promise((resolve) => setTimeout(resolve, 300));
		child.kill("SIGINT");
		const result = await done;
		expect(result.code).toBe(130);
		expect(result.stderr).toContain("cancelled");
	});
});
