import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { openAIStream, useSseServer } from "../helpers/sse-server.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { defaultToolsHere } from "../helpers/tool-names.js";
import { createMemoryIO } from "./helpers/memory-io.js";

/** An input that never ends, like `yes | toolbelt run -`. */
function* endlessInput(): Generator<Buffer> {
	const chunk = Buffer.alloc(1024 * 1024, "y\n");
	while (true) yield chunk;
}

describe("toolbelt run (in process, against a scripted OpenAI-compatible server)", () => {
	const tempDir = useTempDir();
	const server = useSseServer();
	const modelFlags = () => ["--provider", "openai", "--base-url", server.openaiBaseUrl, "--model", "test-model"];

	it("runs the tools the model asks for and prints only the final answer on stdout", async () => {
		await writeFile(join(tempDir(), "a.txt"), "hello\n");
		server.push(
			{
				events: openAIStream([
					{ text: "Let me look." },
					{ toolCall: { index: 0, id: "call_1", name: "ls", arguments: '{"path":' } },
					{ toolCall: { index: 0, arguments: ' "."}' } },
					{ finish: "tool_calls" },
				]),
			},
			{ events: openAIStream([{ text: "There is one file: " }, { text: "a.txt." }, { finish: "stop" }]) },
		);
		const { io, stdout, stderr } = createMemoryIO({ cwd: tempDir() });
		expect(await main(["run", ...modelFlags(), "What", "is", "here?"], io)).toBe(0);
		expect(stdout()).toBe("There is one file: a.txt.\n");
		expect(stderr()).toMatch(/^● ls \. {2}✓ \d+\.\d s$/m);

		const [first, second] = server.requests;
		expect(first?.body.model).toBe("test-model");
		expect(first?.body.messages.at(-1)).toMatchObject({ role: "user", content: "What is here?" });
		expect(first?.body.messages[0].content).toContain(`Working directory: ${tempDir()}`);
		expect(first?.body.tools.map((tool: { function: { name: string } }) => tool.function.name)).toEqual(
			defaultToolsHere({ agent: true, patches: false }),
		);
		expect(second?.body.messages.at(-1)).toMatchObject({ role: "tool", tool_call_id: "call_1" });
		expect(second?.body.messages.at(-1).content).toContain("a.txt");
	});

	it("prints one JSON event per line with --json, and honours the tool flags", async () => {
		server.push({ events: openAIStream([{ text: "Hi" }, { text: " there" }, { finish: "stop" }]) });
		const { io, stdout } = createMemoryIO({ cwd: tempDir() });
		const flags = [...modelFlags(), "--json", "--read-only", "--system-prompt", "Be terse."];
		expect(await main(["run", ...flags, "hello"], io)).toBe(0);
		const events = stdout()
			.trim()
			.split("\n")
			.map((line) => JSON.parse(line) as { type: string; assistantMessageEvent?: { delta?: string } });
		expect(events[0]?.type).toBe("agent_start");
		expect(events.at(-1)?.type).toBe("agent_end");
		const deltas = events
			.filter((event) => event.type === "message_update")
			.map((event) => event.assistantMessageEvent);
		expect(deltas.map((update) => update?.delta).join("")).toBe("Hi there");
		expect(deltas.every((update) => update && !("partial" in update))).toBe(true);
		const body = server.requests[0]?.body;
		expect(body.messages[0]).toEqual({ role: "system", content: "Be terse." });
		expect(body.tools.map((tool: { function: { name: string } }) => tool.function.name)).toEqual([
			"read",
			"grep",
			"find",
			"ls",
		]);
	});

	it("reads the prompt from stdin, alone or in place of '-'", async () => {
		server.push(
			{ events: openAIStream([{ text: "ok" }, { finish: "stop" }]) },
			{ events: openAIStream([{ text: "ok" }, { finish: "stop" }]) },
		);
		const piped = createMemoryIO({ cwd: tempDir(), stdin: "Summarize the repo\n" });
		expect(await main(["run", ...modelFlags()], piped.io)).toBe(0);
		expect(server.requests[0]?.body.messages.at(-1).content).toBe("Summarize the repo\n");
		const dash = createMemoryIO({ cwd: tempDir(), stdin: "diff --git a b" });
		expect(await main(["run", ...modelFlags(), "Review:", "-"], dash.io)).toBe(0);
		expect(server.requests[1]?.body.messages.at(-1).content).toBe("Review: diff --git a b");
	});

	it("runs the calls of a reply one at a time with --sequential, together without", async () => {
		await writeFile(join(tempDir(), "a.txt"), "a\n");
		const order = async (flags: string[]) => {
			server.push(
				{
					events: openAIStream([
						{ toolCall: { index: 0, id: "c1", name: "read", arguments: '{"path":"a.txt"}' } },
						{ toolCall: { index: 1, id: "c2", name: "read", arguments: '{"path":"a.txt"}' } },
						{ finish: "tool_calls" },
					]),
				},
				{ events: openAIStream([{ text: "ok" }, { finish: "stop" }]) },
			);
			const { io, stdout } = createMemoryIO({ cwd: tempDir() });
			expect(await main(["run", ...modelFlags(), "--json", ...flags, "read a twice"], io)).toBe(0);
			return stdout()
				.trim()
				.split("\n")
				.map((line) => JSON.parse(line) as { type: string; toolCallId?: string })
				.filter((event) => event.type === "tool_execution_start" || event.type === "tool_execution_end")
				.map((event) => `${event.type.replace("tool_execution_", "")} ${event.toolCallId}`);
		};
		expect(await order(["--sequential"])).toEqual(["start c1", "end c1", "start c2", "end c2"]);
		expect((await order([])).slice(0, 2)).toEqual(["start c1", "start c2"]);
	});

	it("refuses piped input beyond 16 MB with exit 2 instead of buffering it all", async () => {
		const piped = createMemoryIO({ cwd: tempDir(), stdinStream: Readable.from(endlessInput()) });
		expect(await main(["run", ...modelFlags(), "Summarize:", "-"], piped.io)).toBe(2);
		expect(piped.stderr()).toContain("The piped input is over 16 MB");
		expect(server.requests).toHaveLength(0);
	});

	it("adds the tools of the MCP servers in --mcp-config", async () => {
		const serverScript = new URL("./fixtures/shout-mcp-server.mjs", import.meta.url).pathname;
		// Trusted, so its readOnlyHint counts (the folder holding the config must be trusted too).
		const config = { mcpServers: { loud: { command: process.execPath, args: [serverScript], trusted: true } } };
		await writeFile(join(tempDir(), "mcp.json"), JSON.stringify(config));
		server.push(
			{
				events: openAIStream([
					{ toolCall: { index: 0, id: "call_1", name: "loud__shout", arguments: '{"text": "quiet please"}' } },
					{ finish: "tool_calls" },
				]),
			},
			{ events: openAIStream([{ text: "Done." }, { finish: "stop" }]) },
		);
		const { io, stdout, stderr } = createMemoryIO({ cwd: tempDir(), env: { PATH: process.env.PATH } });
		expect(
			await main(["run", ...modelFlags(), "--read-only", "--trust-project", "--mcp-config", "mcp.json", "shout"], io),
		).toBe(0);
		expect(stdout()).toBe("Done.\n");
		expect(stderr()).toMatch(/● loud__shout \{"text":"quiet please"\} {2}✓/);
		const names = server.requests[0]?.body.tools.map((tool: { function: { name: string } }) => tool.function.name);
		expect(names).toEqual(["read", "grep", "find", "ls", "loud__shout"]);
		expect(server.requests[1]?.body.messages.at(-1)).toMatchObject({ role: "tool", content: "QUIET PLEASE" });

		const broken = createMemoryIO({ cwd: tempDir() });
		await writeFile(join(tempDir(), "bad.json"), "{ not json");
		expect(await main(["run", ...modelFlags(), "--mcp-config", "bad.json", "hi"], broken.io)).toBe(2);
		expect(broken.stderr()).toContain("bad.json");
	});

	it("sends the core set and tool_search when the tools pass the settings' toolSearch.threshold", async () => {
		const serverScript = new URL("./fixtures/shout-mcp-server.mjs", import.meta.url).pathname;
		const home = join(tempDir(), "home");
		await mkdir(join(home, ".toolbelt"), { recursive: true });
		await writeFile(join(home, ".toolbelt", "settings.json"), JSON.stringify({ toolSearch: { threshold: 3 } }));
		const config = { mcpServers: { loud: { command: process.execPath, args: [serverScript], trusted: true } } };
		await writeFile(join(tempDir(), "mcp.json"), JSON.stringify(config));
		const requestNames = () =>
			server.requests.at(-1)?.body.tools.map((tool: { function: { name: string } }) => tool.function.name);
		const run = async () => {
			server.push({ events: openAIStream([{ text: "Done." }, { finish: "stop" }]) });
			const { io } = createMemoryIO({ cwd: tempDir(), env: { PATH: process.env.PATH, HOME: home } });
			expect(
				await main(["run", ...modelFlags(), "--read-only", "--trust-project", "--mcp-config", "mcp.json", "hi"], io),
			).toBe(0);
			return requestNames();
		};
		// Five tools over a threshold of 3: the server's tool waits for a search.
		expect(await run()).toEqual(["read", "grep", "find", "ls", "tool_search"]);
		await writeFile(join(home, ".toolbelt", "settings.json"), JSON.stringify({ toolSearch: { threshold: 5 } }));
		expect(await run()).toEqual(["read", "grep", "find", "ls", "loud__shout"]);
		await writeFile(join(home, ".toolbelt", "settings.json"), JSON.stringify({ toolSearch: { threshold: -1 } }));
		const wrong = createMemoryIO({ cwd: tempDir(), env: { PATH: process.env.PATH, HOME: home } });
		expect(await main(["run", ...modelFlags(), "--mcp-config", "mcp.json", "hi"], wrong.io)).toBe(2);
		expect(wrong.stderr()).toContain("toolSearch.threshold");
	});

	it("stops at --max-turns with exit 1 and says so", async () => {
		server.push({
			events: openAIStream([
				{ toolCall: { index: 0, id: "call_1", name: "ls", arguments: "{}" } },
				{ finish: "tool_calls" },
			]),
		});
		const { io, stderr } = createMemoryIO({ cwd: tempDir() });
		expect(await main(["run", ...modelFlags(), "--max-turns", "1", "loop forever"], io)).toBe(1);
		expect(stderr()).toContain("turn limit");
		expect(server.requests).toHaveLength(1);
	});

	it("exits 1 with the provider's error on stderr", async () => {
		server.push({
			status: 401,
			json: { error: { message: "Incorrect API key provided", type: "invalid_request_error" } },
		});
		const { io, stdout, stderr } = createMemoryIO({ cwd: tempDir() });
		expect(await main(["run", ...modelFlags(), "hello"], io)).toBe(1);
		expect(stdout()).toBe("");
		expect(stderr()).toContain("Incorrect API key provided");
	});

	it("exits 130 when interrupted mid-reply, promptly", async () => {
		server.push({ events: openAIStream([{ text: "Thinking about it" }], { done: false }), hang: true });
		const { io, stderr, interrupt } = createMemoryIO({ cwd: tempDir() });
		const running = main(["run", ...modelFlags(), "hello"], io);
		while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
		await new Promise((resolve) => setTimeout(resolve, 200));
		const interruptedAt = Date.now();
		interrupt();
		expect(await running).toBe(130);
		expect(Date.now() - interruptedAt).toBeLessThan(5000);
		expect(stderr()).toContain("cancelled");
	});

	it("gives up waiting on a second interrupt", async () => {
		server.push({ events: openAIStream([{ text: "Let me" }], { done: false }), hang: true });
		const { io, stderr, interrupt } = createMemoryIO({ cwd: tempDir() });
		const running = main(["run", ...modelFlags(), "hello"], io);
		while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
		interrupt();
		interrupt();
		expect(await running).toBe(130);
		expect(stderr()).toContain("cancelled");
	});
});
