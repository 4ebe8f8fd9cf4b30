// Tool search over 300 tools of a real MCP server the test starts: the requests carry only the
// core set and tool_search, a search finds the named tool, and the found tool runs.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Agent } from "../../../src/agent/agent.js";
import { loadMcpTools, type McpTools } from "../../../src/mcp/client/client.js";
import { createTool, createToolSearch } from "../../../src/tools/index.js";
import { createFakeModelStream, fakeModel, textReply, toolCallReply } from "../../helpers/fake-model-stream.js";
import { resultText } from "../../helpers/results.js";
import { useTempDir } from "../../helpers/temp-dir.js";

vi.setConfig({ testTimeout: 60_000 });

const serverEntry = fileURLToPath(new URL("./many-tools-server.mjs", import.meta.url));
const open: McpTools[] = [];
afterEach(async () => {
	await Promise.all(open.splice(0).map((loaded) => loaded.close()));
});
const tempDir = useTempDir();

async function manyTools(): Promise<McpTools> {
	const path = join(tempDir(), "mcp.json");
	await writeFile(path, JSON.stringify({ mcpServers: { many: { command: process.execPath, args: [serverEntry] } } }));
	const loaded = await loadMcpTools(path);
	open.push(loaded);
	return loaded;
}

const requestNames = (request: { context: { tools?: readonly { name: string }[] } }) =>
	(request.context.tools ?? []).map((tool) => tool.name);

describe("tool search", () => {
	it("sends the core set, finds a tool among 300 by what it does, and the found tool runs", async () => {
		const mcp = await manyTools();
		expect(mcp.tools).toHaveLength(300);
		const builtIns = (["read", "grep", "code"] as const).map((name) => createTool(name, tempDir()));
		const search = createToolSearch({ tools: [...builtIns, ...mcp.tools] });
		expect(search.active).toBe(true);
		const model = createFakeModelStream([
			toolCallReply([{ id: "s1", name: "tool_search", arguments: { query: "convert money between currencies" } }]),
			toolCallReply([{ id: "c1", name: "many__convert_currency", arguments: { amount: 10, from: "EUR", to: "USD" } }]),
			textReply("10 EUR is 20 USD."),
		]);
		const agent = new Agent({
			model: fakeModel,
			streamFn: model.streamFn,
			tools: [...search.tools],
			requestTools: () => search.requestTools(),
		});
		await agent.prompt("How much is 10 EUR in USD?");
		expect(model.requests).toHaveLength(3);
		expect(requestNames(model.requests[0]!)).toEqual(["read", "grep", "code", "tool_search"]);
		const found = model.requests[1]!.context.messages.find((message) => message.role === "toolResult");
		const foundText = resultText(found as never);
		expect(foundText.split("\n")[1]).toContain('"name":"many__convert_currency"');
		expect(requestNames(model.requests[1]!)).toContain("many__convert_currency");
		expect(requestNames(model.requests[1]!).length).toBeLessThanOrEqual(4 + 5);
		const converted = model.requests[2]!.context.messages.filter((message) => message.role === "toolResult").at(-1);
		expect(resultText(converted as never)).toContain("10 EUR is 20 USD");
	});

	it("reaches a tool not loaded yet from a code program at once", async () => {
		const mcp = await manyTools();
		const search = createToolSearch({ tools: [createTool("code", tempDir()), ...mcp.tools] });
		const model = createFakeModelStream([
			toolCallReply([
				{
					id: "p1",
					name: "code",
					arguments: {
						code: `return (await tools.many__convert_currency({ amount: 3, from: "CHF", to: "JPY" })).text;`,
					},
				},
			]),
			textReply("done"),
		]);
		const agent = new Agent({
			model: fakeModel,
			streamFn: model.streamFn,
			tools: [...search.tools],
			requestTools: () => search.requestTools(),
		});
		await agent.prompt("Convert 3 CHF to JPY.");
		expect(requestNames(model.requests[0]!)).toEqual(["code", "tool_search"]);
		const result = model.requests[1]!.context.messages.find((message) => message.role === "toolResult");
		expect(resultText(result as never)).toContain("3 CHF is 6 JPY");
	});

	it("stays off for a small tool set: every tool is sent, there is no search tool", () => {
		const tools = (["read", "grep"] as const).map((name) => createTool(name, tempDir()));
		const search = createToolSearch({ tools });
		expect(search.active).toBe(false);
		expect(search.requestTools().map((tool) => tool.name)).toEqual(["read", "grep"]);
	});
});
