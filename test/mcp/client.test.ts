import { type ChildProcess, spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { agentLoop } from "../../src/agent/agent-loop.js";
import { createUserMessage } from "../../src/agent/messages.js";
import type { ToolResultMessage } from "../../src/agent/types.js";
import { executeToolCalls } from "../../src/engine/execute-tool-calls.js";
import type { AnyAgentTool } from "../../src/engine/types.js";
import { loadMcpTools, type McpTools } from "../../src/mcp/client/client.js";
import { McpConfigError } from "../../src/mcp/client/config.js";
import { createFakeModelStream, fakeModel, textReply, toolCallReply } from "../helpers/fake-model-stream.js";
import { freePort } from "../helpers/loopback.js";
import { resultText } from "../helpers/results.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { processesMatching, toolbeltMcpCommand, waitFor } from "./helpers.js";

const everythingEntry = fileURLToPath(
	new URL("../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url),
);
const flakyEntry = fileURLToPath(new URL("./fixtures/flaky-server.mjs", import.meta.url));

const open: McpTools[] = [];
const httpServers: ChildProcess[] = [];
afterEach(async () => {
	await Promise.all(open.splice(0).map((loaded) => loaded.close()));
	for (const server of httpServers.splice(0)) server.kill("SIGKILL");
});

/** Starts server-everything over HTTP on a free loopback port (killed after the test); resolves once it listens. */
async function everythingOverHttp(transport: "sse" | "streamableHttp"): Promise<number> {
	const port = await freePort();
	const server = spawn(process.execPath, [everythingEntry, transport], {
		env: { ...process.env, PORT: String(port) },
		stdio: ["ignore", "ignore", "pipe"],
	});
	httpServers.push(server);
	let stderr = "";
	server.stderr?.on("data", (chunk: Buffer) => {
		stderr += chunk.toString("utf8");
	});
	await waitFor(() => stderr.includes(`port ${port}`), 10_000);
	return port;
}

async function load(dir: string, servers: Record<string, unknown>, options: Parameters<typeof loadMcpTools>[1] = {}) {
	const path = join(dir, "mcp.json");
	await writeFile(path, JSON.stringify({ mcpServers: servers }));
	const loaded = await loadMcpTools(path, options);
	open.push(loaded);
	return loaded;
}

function toolNamed(loaded: McpTools, name: string): AnyAgentTool {
	const tool = loaded.tools.find((candidate) => candidate.name === name);
	if (!tool) throw new Error(`no tool ${name} in ${loaded.tools.map((candidate) => candidate.name).join(", ")}`);
	return tool;
}

async function callThroughEngine(tool: AnyAgentTool, args: Record<string, unknown>) {
	const { messages } = await executeToolCalls({
		tools: [tool],
		toolCalls: [{ type: "toolCall", id: "call-1", name: tool.name, arguments: args }],
	});
	const message = messages[0] as ToolResultMessage;
	const text = resultText(message, { separator: "\n", markOthers: true });
	return { message, text };
}

describe("MCP client: external servers as agent tools", () => {
	const tempDir = useTempDir();

	it("lists server-everything's tools and runs them through the agent loop with the fake model", async () => {
		const loaded = await load(tempDir(), {
			everything: { command: process.execPath, args: [everythingEntry], trusted: true },
		});
		expect(loaded.servers.map((server) => [server.name, server.error])).toEqual([["everything", undefined]]);
		const names = loaded.tools.map((tool) => tool.name);
		expect(names).toContain("everything__echo");
		expect(names).toContain("everything__get-sum");
		for (const tool of loaded.tools) expect(tool.name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
		expect(toolNamed(loaded, "everything__echo").executionMode).toBe("parallel");

		const fake = createFakeModelStream([
			toolCallReply([
				{ name: "everything__get-sum", arguments: { a: "2", b: 40 } },
				{ name: "everything__echo", arguments: { message: "hello over MCP" } },
			]),
			textReply("The sum is 42."),
		]);
		const stream = agentLoop(
			[createUserMessage("add 2 and 40, then echo")],
			{ messages: [], tools: loaded.tools },
			{ model: fakeModel, streamFn: fake.streamFn },
		);
		for await (const _event of stream) {
			// drain
		}
		const messages = await stream.result();
		const results = messages.filter((message): message is ToolResultMessage => message.role === "toolResult");
		expect(results.map((result) => result.isError)).toEqual([false, false]);
		expect(JSON.stringify(results[0]?.content)).toContain("42");
		expect(JSON.stringify(results[1]?.content)).toContain("hello over MCP");
		const offered = fake.requests[0]?.context.tools?.map((tool) => tool.name) ?? [];
		expect(offered).toContain("everything__get-sum");
	});

	it("passes images through and reports progress", async () => {
		const loaded = await load(tempDir(), { everything: { command: process.execPath, args: [everythingEntry] } });
		const image = await toolNamed(loaded, "everything__get-tiny-image").execute("id", {}, undefined);
		expect(image.content.some((block) => block.type === "image" && block.mimeType === "image/png")).toBe(true);
		const updates: string[] = [];
		const result = await toolNamed(loaded, "everything__trigger-long-running-operation").execute(
			"id",
			{ duration: 1, steps: 3 },
			undefined,
			(partial) => updates.push(resultText(partial)),
		);
		expect(updates.length).toBeGreaterThanOrEqual(2);
		expect(JSON.stringify(result.content)).toContain("completed");
	});

	it("fits a server's images to the limits read applies, and replaces an unusable one by a notice", async () => {
		const loaded = await load(tempDir(), { flaky: { command: process.execPath, args: [flakyEntry] } });
		const result = await toolNamed(loaded, "flaky__huge-image").execute("id", {}, undefined);
		const [image, notice] = result.content;
		expect(image?.type).toBe("image");
		const data = image?.type === "image" ? image.data : "";
		expect(data.length).toBeLessThanOrEqual(4.5 * 2 ** 20);
		const { default: sharp } = await import("sharp");
		const { width, height } = await sharp(Buffer.from(data, "base64")).metadata();
		expect(Math.max(width ?? 0, height ?? 0)).toBeLessThanOrEqual(2000);
		expect(notice?.type).toBe("text");
		expect(notice?.type === "text" ? notice.text : "").toMatch(/^\[image image\/png, 6(\.0)? MB — not shown/);
		// A 6 MB image made and re-encoded on two loaded cores took over 20 s once.
	}, 60_000);

	it("drops an untrusted server's annotations: its tools are sequential and 'execute', whatever they claim", async () => {
		const loaded = await load(tempDir(), { flaky: { command: process.execPath, args: [flakyEntry] } });
		const lookup = toolNamed(loaded, "flaky__lookup");
		expect(lookup.executionMode).toBe("sequential");
		expect(lookup.annotations?.readOnlyHint).toBeUndefined();
		expect(lookup.target?.({})).toEqual({ access: "execute" });
		const vouchedFor = await load(
			tempDir(),
			{ flaky: { command: process.execPath, args: [flakyEntry], trusted: true } },
			{
				honorTrusted: false,
			},
		);
		expect(toolNamed(vouchedFor, "flaky__lookup").target?.({})).toEqual({ access: "execute" });
	});

	it("normalises names and schemas, validates and coerces, and maps annotations", async () => {
		const loaded = await load(tempDir(), { flaky: { command: process.execPath, args: [flakyEntry], trusted: true } });
		const lookup = toolNamed(loaded, "flaky__lookup");
		expect(JSON.stringify(lookup.parameters)).not.toContain("$ref");
		expect(JSON.stringify(lookup.parameters)).not.toContain("$defs");
		expect(lookup.executionMode).toBe("parallel");
		expect(toolNamed(loaded, "flaky__hang").executionMode).toBe("sequential");
		const { message, text } = await callThroughEngine(lookup, { count: "3", filter: { name: "x" } });
		expect(message.isError).toBe(false);
		expect(JSON.parse(text)).toEqual({ count: 3, filter: { name: "x" } });
		const invalid = await callThroughEngine(lookup, { count: "many" });
		expect(invalid.message.isError).toBe(true);
		expect(invalid.text).toContain("count");
		const weird = await callThroughEngine(toolNamed(loaded, "flaky__weird_name_v1"), {});
		expect(weird.text).toBe("weird ok");
		const failed = await callThroughEngine(toolNamed(loaded, "flaky__fail"), {});
		expect(failed.message.isError).toBe(true);
		expect(failed.text).toContain("The widget is jammed");
		const updates: unknown[] = [];
		await toolNamed(loaded, "flaky__slow").execute("id", {}, undefined, (partial) => updates.push(partial));
		expect(updates.length).toBe(3);
	});

	it("turns a hung server into an error result within the call timeout", async () => {
		const loaded = await load(
			tempDir(),
			{ flaky: { command: process.execPath, args: [flakyEntry] } },
			{ callTimeoutMs: 800 },
		);
		const started = Date.now();
		const { message, text } = await callThroughEngine(toolNamed(loaded, "flaky__hang"), {});
		expect(Date.now() - started).toBeLessThan(5000);
		expect(message.isError).toBe(true);
		expect(text).toContain('MCP server "flaky", tool "hang": no answer within 0.8 s');
	});

	it("cancels a call that reports progress forever once it has run its total time", async () => {
		const loaded = await load(
			tempDir(),
			{ flaky: { command: process.execPath, args: [flakyEntry] } },
			{ callTimeoutMs: 400, callMaxTotalMs: 1500 },
		);
		const updates: string[] = [];
		const started = Date.now();
		const { messages } = await executeToolCalls({
			tools: [toolNamed(loaded, "flaky__chatty")],
			toolCalls: [{ type: "toolCall", id: "call-1", name: "flaky__chatty", arguments: {} }],
			onEvent: (event) => {
				if (event.type === "tool_execution_update") updates.push(JSON.stringify(event.partialResult.content));
			},
		});
		expect(Date.now() - started).toBeLessThan(6000);
		expect(updates.length).toBeGreaterThan(1);
		expect(messages[0]?.isError).toBe(true);
		expect(JSON.stringify(messages[0]?.content)).toContain("still running after 1.5 s in all");
		const again = await callThroughEngine(toolNamed(loaded, "flaky__lookup"), { count: 1 });
		expect(again.message.isError).toBe(false);
	});

	it("turns a crashed server into an error result, then restarts it on the next call", async () => {
		const loaded = await load(tempDir(), { flaky: { command: process.execPath, args: [flakyEntry] } });
		const { message, text } = await callThroughEngine(toolNamed(loaded, "flaky__crash"), {});
		expect(message.isError).toBe(true);
		expect(text).toContain("closed the connection");
		expect(text).toContain("simulated crash");
		const again = await callThroughEngine(toolNamed(loaded, "flaky__lookup"), { count: 1 });
		expect(again.message.isError).toBe(false);
	});

	it("reports servers that fail to start or to connect in time, and still loads the others", async () => {
		const marker = "mcp-never-speaks-4711";
		// The working server listens before the call, so the bound need not cover a process start on a
		// loaded machine (a stdio server's start took over 2.5 s once): the silent one is waited out sooner.
		const port = await everythingOverHttp("streamableHttp");
		const loaded = await load(
			tempDir(),
			{
				silent: { command: process.execPath, args: ["-e", "setTimeout(() => {}, 60000)", marker] },
				missing: { command: join(tempDir(), "no-such-binary") },
				working: { type: "http", url: `http://127.0.0.1:${port}/mcp` },
			},
			{ connectTimeoutMs: 3000 },
		);
		const byName = Object.fromEntries(loaded.servers.map((server) => [server.name, server]));
		expect(byName.silent?.error).toContain("did not finish connecting within 3 s");
		expect(byName.missing?.error).toContain('MCP server "missing" could not be started');
		expect(byName.working?.error).toBeUndefined();
		expect(byName.working?.tools.length).toBeGreaterThan(0);
		await waitFor(() => processesMatching(marker).length === 0, 5000);
	});

	it("close() ends the server processes", { timeout: 60_000 }, async () => {
		const loaded = await load(tempDir(), {
			flaky: { command: process.execPath, args: [flakyEntry, "close-marker-9931"] },
		});
		expect(processesMatching("close-marker-9931").length).toBe(1);
		await loaded.close();
		// close() ends stdin, then signals (SIGTERM, SIGKILL) a server still there after 2 s each; a
		// loaded machine may take a while more to let the process exit. Without close it lives on.
		await waitFor(() => processesMatching("close-marker-9931").length === 0, 20_000);
	});

	it("uses toolbelt's own MCP server as an external server", async () => {
		const { command, args } = toolbeltMcpCommand(["--cwd", tempDir()]);
		const loaded = await load(tempDir(), { toolbelt: { command, args, trusted: true } });
		expect(toolNamed(loaded, "toolbelt__read").executionMode).toBe("parallel");
		expect(toolNamed(loaded, "toolbelt__write").executionMode).toBe("sequential");
		const written = await callThroughEngine(toolNamed(loaded, "toolbelt__write"), {
			path: "via-mcp.txt",
			content: "round trip\n",
		});
		expect(written.message.isError).toBe(false);
		const read = await callThroughEngine(toolNamed(loaded, "toolbelt__read"), { path: "via-mcp.txt" });
		expect(read.text).toContain("round trip");
	});

	it("falls back to the legacy SSE transport for a url without a type", async () => {
		const port = await everythingOverHttp("sse");
		const loaded = await load(tempDir(), { legacy: { url: `http://127.0.0.1:${port}/sse` } });
		expect(loaded.servers[0]?.error).toBeUndefined();
		const { text } = await callThroughEngine(toolNamed(loaded, "legacy__echo"), { message: "over sse" });
		expect(text).toContain("over sse");
	});

	it("rejects an unusable config file with the entry named", async () => {
		const path = join(tempDir(), "bad.json");
		await writeFile(path, JSON.stringify({ mcpServers: { broken: { args: ["x"] } } }));
		await expect(loadMcpTools(path)).rejects.toThrow(McpConfigError);
		await expect(loadMcpTools(path)).rejects.toThrow('mcpServers.broken needs a "command"');
	});
});
