import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectMcpServers } from "../../src/mcp/client/client.js";
import { defaultToolsHere } from "../helpers/tool-names.js";
import { processesMatching, textOf, toolbeltMcpCommand, waitFor } from "./helpers.js";

let server: ChildProcess;
let serverExited: Promise<number | null>;
let url: URL;
let root: string;
let stderr = "";
/** The bearer token the server printed on stderr at start. */
let token = "";
let authorization: Record<string, string> = {};

async function connect(): Promise<Client> {
	const client = new Client({ name: "toolbelt-http-test", version: "1.0.0" });
	await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: authorization } }));
	return client;
}

/** A raw POST with a chosen Host header, which fetch does not allow. */
function postWithHost(host: string): Promise<number> {
	return new Promise((resolve, reject) => {
		const outgoing = request(
			url,
			{
				method: "POST",
				headers: {
					host,
					"content-type": "application/json",
					accept: "application/json, text/event-stream",
					...authorization,
				},
			},
			(response) => {
				response.resume();
				resolve(response.statusCode ?? 0);
			},
		);
		outgoing.on("error", reject);
		outgoing.end(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }));
	});
}

/** Opens a session by hand (fetch, so a call can be dropped mid-way) and returns its headers. */
async function rawSession(): Promise<Record<string, string>> {
	const jsonHeaders = {
		"content-type": "application/json",
		accept: "application/json, text/event-stream",
		...authorization,
	};
	const initialize = await fetch(url, {
		method: "POST",
		headers: jsonHeaders,
		body: JSON.stringify({
			jsonrpc: "2.0",
			id: 1,
			method: "initialize",
			params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
		}),
	});
	await initialize.text();
	const headers = {
		...jsonHeaders,
		"mcp-session-id": initialize.headers.get("mcp-session-id") ?? "",
		"mcp-protocol-version": "2025-06-18",
	};
	const body = JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" });
	await (await fetch(url, { method: "POST", headers, body })).text();
	return headers;
}

function callBody(id: number, command: string): string {
	return JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "bash", arguments: { command } } });
}

beforeAll(async () => {
	root = await mkdtemp(join(tmpdir(), "toolbelt-"));
	const { command, args } = toolbeltMcpCommand(["--http", "127.0.0.1:0", "--cwd", root]);
	server = spawn(command, args, {
		stdio: ["ignore", "pipe", "pipe"],
		env: { ...process.env, TOOLBELT_MCP_TOKEN: undefined },
	});
	serverExited = new Promise((resolve) => server.once("exit", (code) => resolve(code)));
	server.stderr?.on("data", (chunk: Buffer) => {
		stderr += chunk.toString("utf8");
	});
	const connectLine =
		/claude mcp add --transport http toolbelt (http:\/\/127\.0\.0\.1:\d+\/mcp) --header "Authorization: Bearer ([^"]+)"/;
	await waitFor(() => connectLine.test(stderr), 15_000);
	const [, printedUrl = "", printedToken = ""] = connectLine.exec(stderr) ?? [];
	url = new URL(printedUrl);
	token = printedToken;
	authorization = { authorization: `Bearer ${token}` };
});

afterAll(async () => {
	if (server && server.exitCode === null) server.kill("SIGKILL");
	if (root) await rm(root, { recursive: true, force: true });
});

describe("toolbelt mcp --http", () => {
	it("lists and calls tools over Streamable HTTP", async () => {
		const client = await connect();
		try {
			const { tools } = await client.listTools();
			expect(tools.map((tool) => tool.name)).toEqual(defaultToolsHere());
			expect(tools.find((tool) => tool.name === "grep")?.annotations?.readOnlyHint).toBe(true);
			await client.callTool({ name: "write", arguments: { path: "notes.md", content: "# Notes\n" } });
			expect(await readFile(join(root, "notes.md"), "utf8")).toBe("# Notes\n");
			expect(textOf(await client.callTool({ name: "read", arguments: { path: "notes.md" } }))).toContain("# Notes");
			const failed = await client.callTool({
				name: "edit",
				arguments: { path: "notes.md", old_string: "absent", new_string: "x" },
			});
			expect(failed.isError).toBe(true);
			expect(textOf(failed).length).toBeGreaterThan(10);
			const unknown = await client.callTool({ name: "nope", arguments: {} }).catch((error) => error);
			expect(unknown).toBeInstanceOf(McpError);
		} finally {
			await client.close();
		}
	});

	it("streams progress and honours cancellation over HTTP", { timeout: 60_000 }, async () => {
		const client = await connect();
		try {
			const messages: string[] = [];
			const result = await client.callTool(
				{ name: "bash", arguments: { command: "for i in 1 2 3 4; do echo tick-$i; sleep 0.25; done" } },
				undefined,
				{ onprogress: (progress) => messages.push(progress.message ?? "") },
			);
			expect(textOf(result)).toContain("tick-4");
			expect(messages.length).toBeGreaterThanOrEqual(2);
			expect(messages.join("\n")).toContain("tick-1");

			const marker = "38.5521";
			const controller = new AbortController();
			const call = client.callTool({ name: "bash", arguments: { command: `sleep ${marker}` } }, undefined, {
				signal: controller.signal,
			});
			await waitFor(() => processesMatching(`sleep ${marker}`).length > 0, 10_000);
			controller.abort();
			await expect(call).rejects.toThrow();
			await waitFor(() => processesMatching(`sleep ${marker}`).length === 0, 15_000);
		} finally {
			await client.close();
		}
	});

	it("lands two concurrent edits of one file from one client", async () => {
		const client = await connect();
		try {
			const path = join(root, "pair.txt");
			await writeFile(path, "left\nright\n");
			const results = await Promise.all([
				client.callTool({ name: "edit", arguments: { path, old_string: "left", new_string: "LEFT" } }),
				client.callTool({ name: "edit", arguments: { path, old_string: "right", new_string: "RIGHT" } }),
			]);
			expect(results.map((result) => result.isError ?? false)).toEqual([false, false]);
			expect(await readFile(path, "utf8")).toBe("LEFT\nRIGHT\n");
		} finally {
			await client.close();
		}
	});

	it("serves as an HTTP server for toolbelt's own MCP client", async () => {
		const remote = await connectMcpServers({
			// Trusted, so its read-only annotations count (an untrusted server's tools are all "execute").
			remote: { type: "http", url: url.href, headers: { "x-test": "1", ...authorization }, trusted: true },
		});
		try {
			expect(remote.servers[0]?.error).toBeUndefined();
			const ls = remote.tools.find((tool) => tool.name === "remote__ls");
			expect(ls?.executionMode).toBe("parallel");
			const result = await ls?.execute("call", { path: "." }, undefined);
			expect(JSON.stringify(result?.content)).toContain("notes.md");
		} finally {
			await remote.close();
		}
	});

	it("cancels a call whose client disconnected: its process dies and later calls are not held behind it", {
		timeout: 60_000,
	}, async () => {
		const headers = await rawSession();
		const marker = "37.4419";
		const controller = new AbortController();
		const dropped = fetch(url, {
			method: "POST",
			headers,
			body: callBody(2, `sleep ${marker}`),
			signal: controller.signal,
		})
			.then((response) => response.text())
			.catch(() => "disconnected");
		await waitFor(() => processesMatching(`sleep ${marker}`).length > 0, 10_000);
		controller.abort();
		expect(await dropped).toBe("disconnected");
		await waitFor(() => processesMatching(`sleep ${marker}`).length === 0, 15_000);
		// bash is a barrier: without the cancellation this call would wait for the sleep.
		const started = Date.now();
		const next = await fetch(url, { method: "POST", headers, body: callBody(3, "echo after-drop") });
		expect(await next.text()).toContain("after-drop");
		// Far below the 37 s sleep it would otherwise wait for, with room for a loaded machine.
		expect(Date.now() - started).toBeLessThan(20_000);
	});

	it("answers a body that is not JSON with a parse error and keeps serving", async () => {
		const headers = await rawSession();
		const response = await fetch(url, { method: "POST", headers, body: "{ not json" });
		expect(response.status).toBe(400);
		expect(((await response.json()) as { error: { code: number } }).error.code).toBe(-32700);
		const next = await fetch(url, { method: "POST", headers, body: callBody(4, "echo still-serving") });
		expect(await next.text()).toContain("still-serving");
	});

	it("prints a fresh 256-bit token and answers 401 without it", async () => {
		expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
		const response = await fetch(url, {
			method: "POST",
			headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
			body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
		});
		expect(response.status).toBe(401);
		expect(response.headers.get("www-authenticate")).toMatch(/^Bearer /);
	});

	it("refuses requests whose Host header is not loopback (DNS rebinding)", async () => {
		expect(await postWithHost("evil.example:80")).toBe(403);
	});

	it("refuses to listen on a non-loopback address", async () => {
		const { command, args } = toolbeltMcpCommand(["--http", "0.0.0.0:0"]);
		const child = spawn(command, args, { stdio: ["ignore", "ignore", "pipe"] });
		let output = "";
		child.stderr.on("data", (chunk: Buffer) => {
			output += chunk.toString("utf8");
		});
		const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
		expect(code).toBe(2);
		expect(output).toContain("only loopback addresses");
	});

	it("stops on SIGTERM and kills what its tools started", { timeout: 60_000 }, async () => {
		const client = await connect();
		const marker = "39.6617";
		void client.callTool({ name: "bash", arguments: { command: `sleep ${marker}` } }).catch(() => {});
		await waitFor(() => processesMatching(`sleep ${marker}`).length > 0, 10_000);
		server.kill("SIGTERM");
		expect(await serverExited).not.toBeNull();
		await waitFor(() => processesMatching(`sleep ${marker}`).length === 0, 15_000);
		await client.close().catch(() => {});
	});
});
