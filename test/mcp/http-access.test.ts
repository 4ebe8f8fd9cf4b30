import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { normalizeOrigin } from "../../src/mcp/http-origin.js";
import { type McpHttpServer, startMcpHttpServer } from "../../src/mcp/http-server.js";
import { createMcpServer } from "../../src/mcp/server.js";
import { createTool } from "../../src/tools/index.js";
import { createMemoryIO } from "../cli/helpers/memory-io.js";
import { useTempDir } from "../helpers/temp-dir.js";

const tempDir = useTempDir();
let server: McpHttpServer | undefined;

afterEach(async () => {
	await server?.close();
	server = undefined;
});

const ping = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
const jsonHeaders = { "content-type": "application/json", accept: "application/json, text/event-stream" };

function start(options: Partial<Parameters<typeof startMcpHttpServer>[0]> = {}): Promise<McpHttpServer> {
	return startMcpHttpServer({
		host: "127.0.0.1",
		port: 0,
		createSession: () => createMcpServer({ tools: [createTool("ls", tempDir())] }),
		...options,
	});
}

describe("startMcpHttpServer access options", () => {
	it("makes a fresh 256-bit token per start when none is given, and requires it", async () => {
		server = await start();
		const first = server.token;
		expect(first).toMatch(/^[A-Za-z0-9_-]{43}$/);
		const response = await fetch(server.url, { method: "POST", headers: jsonHeaders, body: ping });
		expect(response.status).toBe(401);
		expect(response.headers.get("www-authenticate")).toBe('Bearer realm="toolbelt-mcp"');
		expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/Authorization: Bearer/);
		await server.close();
		server = await start();
		expect(server.token).not.toBe(first);
	});

	it("accepts the scheme in any case and refuses a 401 before looking at the path", async () => {
		server = await start({ token: "a-library-token-0123456789" });
		const lower = await fetch(server.url, {
			method: "POST",
			headers: { ...jsonHeaders, authorization: "bearer a-library-token-0123456789" },
			body: JSON.stringify({
				jsonrpc: "2.0",
				id: 1,
				method: "initialize",
				params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
			}),
		});
		expect(lower.status).toBe(200);
		const elsewhere = await fetch(new URL("/other", server.url), { method: "POST", headers: jsonHeaders, body: ping });
		expect(elsewhere.status).toBe(401);
	});

	it("shows a client with OAuth support the 401 text instead of sending it to an authorization page", async () => {
		server = await start();
		let authorizationPage: URL | undefined;
		const redirectUrl = "http://127.0.0.1:9/callback";
		const provider: OAuthClientProvider = {
			redirectUrl,
			clientMetadata: { redirect_uris: [redirectUrl], client_name: "oauth-client" },
			clientInformation: () => undefined,
			saveClientInformation: () => {},
			tokens: () => undefined,
			saveTokens: () => {},
			redirectToAuthorization: (url) => {
				authorizationPage = url;
			},
			saveCodeVerifier: () => {},
			codeVerifier: () => "verifier",
		};
		const client = new Client({ name: "oauth-client", version: "1.0.0" });
		const transport = new StreamableHTTPClientTransport(new URL(server.url), { authProvider: provider });
		const error = await client.connect(transport).then(
			() => undefined,
			(thrown: unknown) => thrown as Error,
		);
		await client.close().catch(() => {});
		expect(authorizationPage).toBeUndefined();
		// The message the client reports is the server's own text, not a complaint about its format.
		expect(error?.message).toMatch(/^Unauthorized: send the header 'Authorization: Bearer <token>'/);
	});

	it("auth: false serves without a token; a token with auth: false, a weak token or a bad origin throws", async () => {
		server = await start({ auth: false });
		expect(server.token).toBeUndefined();
		expect((await fetch(server.url, { method: "POST", headers: jsonHeaders, body: ping })).status).not.toBe(401);
		await expect(start({ auth: false, token: "a-library-token-0123456789" })).rejects.toThrow(/contradict/);
		await expect(start({ token: "short" })).rejects.toThrow(/at least 16/);
		await expect(start({ token: "has a space in it, sixteen+" })).rejects.toThrow(/visible ASCII/);
		await expect(start({ allowedOrigins: ["http://localhost:1234/path"] })).rejects.toThrow(/not an origin/);
	});

	it("normalizes origins: case, default ports, a trailing slash; refuses paths, wildcards and null", () => {
		expect(normalizeOrigin("HTTP://LocalHost:80/")).toBe("http://localhost");
		expect(normalizeOrigin("https://example.com:8443")).toBe("https://example.com:8443");
		for (const bad of ["*", "null", "http://localhost:1/x", "http://user@localhost", "localhost:1234"]) {
			expect(normalizeOrigin(bad)).toBeUndefined();
		}
	});
});

describe("toolbelt mcp access flags", () => {
	async function usage(argv: string[], env: Record<string, string> = {}): Promise<string> {
		const memory = createMemoryIO({ cwd: tempDir(), env });
		expect(await main(["mcp", ...argv], memory.io)).toBe(2);
		return memory.stderr();
	}

	it("refuses access flags without --http, contradictions, and bad origins (exit 2)", async () => {
		expect(await usage(["--no-auth"])).toMatch(/only apply with --http/);
		expect(await usage(["--allow-origin", "http://localhost:1"])).toMatch(/only apply with --http/);
		expect(await usage(["--http", "127.0.0.1:0", "--no-auth", "--token-file", "t"])).toMatch(
			/contradicts --token-file/,
		);
		expect(
			await usage(["--http", "127.0.0.1:0", "--no-auth"], { TOOLBELT_MCP_TOKEN: "an-env-token-0123456789" }),
		).toMatch(/contradicts TOOLBELT_MCP_TOKEN/);
		expect(await usage(["--http", "127.0.0.1:0", "--allow-origin", "*"])).toMatch(/expected an origin/);
		expect(await usage(["--http", "127.0.0.1:0"], { TOOLBELT_MCP_TOKEN: "" })).toMatch(/token of 0 characters/);
	});
});
