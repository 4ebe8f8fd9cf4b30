import { afterEach, describe, expect, it } from "vitest";
import { type McpHttpServer, startMcpHttpServer } from "../../src/mcp/http-server.js";
import { createMcpServer } from "../../src/mcp/server.js";
import { createTool } from "../../src/tools/index.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { waitFor } from "./helpers.js";

const tempDir = useTempDir();
const token = "session-test-token-0123456789";
const headers = {
	"content-type": "application/json",
	accept: "application/json, text/event-stream",
	authorization: `Bearer ${token}`,
};
let server: McpHttpServer | undefined;

afterEach(async () => {
	await server?.close();
	server = undefined;
});

async function initialize(url: string): Promise<Record<string, string>> {
	const response = await fetch(url, {
		method: "POST",
		headers,
		body: JSON.stringify({
			jsonrpc: "2.0",
			id: 1,
			method: "initialize",
			params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
		}),
	});
	await response.text();
	return {
		...headers,
		"mcp-session-id": response.headers.get("mcp-session-id") ?? "",
		"mcp-protocol-version": "2025-06-18",
	};
}

describe("startMcpHttpServer sessions", () => {
	it("ends a session its client abandoned, once idle, but not one with a call running", async () => {
		server = await startMcpHttpServer({
			host: "127.0.0.1",
			port: 0,
			// Long enough that a loaded machine still sees both sessions before the idle one ends;
			// the busy call outlasts it, so ending a session with a call running would show.
			sessionIdleMs: 1500,
			token,
			createSession: () => createMcpServer({ tools: [createTool("bash", tempDir())] }),
		});
		const url = server.url;
		const busy = await initialize(url);
		const call = fetch(url, {
			method: "POST",
			headers: busy,
			body: JSON.stringify({
				jsonrpc: "2.0",
				id: 2,
				method: "tools/call",
				params: { name: "bash", arguments: { command: "sleep 3.5; echo done-late" } },
			}),
		}).then((response) => response.text());
		await initialize(url);
		expect(server.sessionCount).toBe(2);
		await waitFor(() => server?.sessionCount === 1, 8000);
		expect(await call).toContain("done-late");
		await waitFor(() => server?.sessionCount === 0, 8000);
		const late = await fetch(url, {
			method: "POST",
			headers: busy,
			body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "ping" }),
		});
		expect(late.status).toBe(404);
	});
});
