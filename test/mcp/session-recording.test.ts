import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { describe, expect, it } from "vitest";
import { createMcpServer } from "../../src/mcp/index.js";
import { createSessionRecorder, readSessionFile, SessionStore, type ToolCallRecord } from "../../src/sessions/index.js";
import { createReadOnlyTools } from "../../src/tools/index.js";
import { useTempDir } from "../helpers/temp-dir.js";

describe("an MCP client's session is recorded", () => {
	const tempDir = useTempDir();

	it("opens at the first call, names the client, and records each call as a batch of its own", async () => {
		const cwd = join(tempDir(), "project");
		await mkdir(cwd);
		await writeFile(join(cwd, "a.txt"), "hello\n");
		const store = SessionStore.open({ stateDir: join(tempDir(), "state"), workspaceFolders: [cwd] });
		const opened: string[] = [];
		const server = createMcpServer({
			tools: createReadOnlyTools(cwd),
			recordSession: async (client) => {
				const recorder = createSessionRecorder({ store, source: "mcp", cwd, ...(client ? { client } : {}) });
				opened.push(recorder.path);
				return recorder;
			},
		});
		const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
		await server.connect(serverSide);
		const client = new Client({ name: "recording-test", version: "2.0.0" });
		await client.connect(clientSide);
		await client.listTools();
		expect(opened).toEqual([]);
		await client.callTool({ name: "read", arguments: { path: "a.txt" } });
		await client.callTool({ name: "ls", arguments: { path: "." } });
		await client.close();
		await server.close();
		expect(opened).toHaveLength(1);
		const session = await readSessionFile(opened[0] as string);
		expect(session.header).toMatchObject({ source: "mcp", client: "recording-test 2.0.0", cwd });
		const calls = session.records.filter((record): record is ToolCallRecord => record.type === "tool_call");
		expect(calls.map((call) => [call.toolName, call.batch])).toEqual([
			["read", 1],
			["ls", 2],
		]);
		expect(calls[0]?.files[0]).toMatchObject({ path: join(cwd, "a.txt"), before: { exists: true, size: 6 } });
	});
});
