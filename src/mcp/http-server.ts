import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isLoopbackHost } from "./loopback.js";
import type { ToolbeltMcpServer } from "./server.js";

/** Options of `startMcpHttpServer`. */
export interface McpHttpServerOptions {
	/** A loopback address: `127.0.0.1`, `::1` or `localhost`. Anything else is refused (no authentication). */
	host: string;
	/** The port; 0 picks a free one (read it from `url`). */
	port: number;
	/** Creates the MCP server of one client session. */
	createSession: () => ToolbeltMcpServer;
	/** The endpoint path. Default: `/mcp`. */
	path?: string;
	/** Receives diagnostics. Default: none. */
	log?: (message: string) => void;
	/**
	 * A session with no open request and no running call for this long is ended, so clients that
	 * vanish without closing their session do not pile up, in ms. Default: 30 minutes.
	 */
	sessionIdleMs?: number;
}

/** A running Streamable HTTP endpoint. */
export interface McpHttpServer {
	/** The endpoint, e.g. `http://127.0.0.1:41234/mcp`. */
	readonly url: string;
	/** Open client sessions. */
	readonly sessionCount: number;
	/** Ends every session (aborting its running calls) and stops listening. */
	close(): Promise<void>;
}

function hostnameOf(header: string): string {
	if (header.startsWith("[")) return header.slice(0, header.indexOf("]") + 1);
	return header.split(":")[0] ?? "";
}

/** Refuses requests a web page could forge against a local server (DNS rebinding, cross-site POST). */
function isTrustedRequest(request: IncomingMessage): boolean {
	const host = request.headers.host;
	if (!host || !isLoopbackHost(hostnameOf(host))) return false;
	const origin = request.headers.origin;
	if (origin === undefined || origin === "null") return origin === undefined;
	try {
		return isLoopbackHost(hostnameOf(new URL(origin).host));
	} catch {
		return false;
	}
}

function reject(response: ServerResponse, status: number, message: string, code = -32000): void {
	response.writeHead(status, { "content-type": "application/json" });
	response.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}

interface Session {
	transport: StreamableHTTPServerTransport;
	mcp: ToolbeltMcpServer;
	/** Requests (POSTs, the GET event stream) whose response is still open. */
	openRequests: number;
	/** When the last request arrived or ended, in ms since the epoch. */
	lastActive: number;
}

/** Counts `response` as activity of `session` until it closes. */
function trackActivity(session: Session, response: ServerResponse): void {
	session.openRequests++;
	session.lastActive = Date.now();
	response.once("close", () => {
		session.openRequests--;
		session.lastActive = Date.now();
	});
}

/** The largest request body read, as the SDK's own limit (a larger one gets 413, never buffered). */
const MAX_BODY_BYTES = 4 * 2 ** 20;

type Body = { ok: true; value: unknown } | { ok: false; status: number; message: string };

/** Reads and parses a POST body, bounded; the transport then gets it pre-parsed. */
async function readBody(request: IncomingMessage): Promise<Body> {
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of request as AsyncIterable<Buffer>) {
		size += chunk.length;
		if (size > MAX_BODY_BYTES) {
			return {
				ok: false,
				status: 413,
				message: `Payload too large: a request body must not exceed ${MAX_BODY_BYTES} bytes.`,
			};
		}
		chunks.push(chunk);
	}
	try {
		return { ok: true, value: JSON.parse(Buffer.concat(chunks).toString("utf8")) };
	} catch {
		return { ok: false, status: 400, message: "Parse error: the request body is not valid JSON." };
	}
}

/** Ids of the JSON-RPC requests (not notifications or responses) in a message or batch. */
function requestIdsOf(body: unknown): (string | number)[] {
	const messages = Array.isArray(body) ? body : [body];
	const ids: (string | number)[] = [];
	for (const message of messages) {
		if (typeof message !== "object" || message === null) continue;
		const { id, method } = message as { id?: unknown; method?: unknown };
		if (typeof method === "string" && (typeof id === "string" || typeof id === "number")) ids.push(id);
	}
	return ids;
}

/**
 * A client that drops the connection of a POST before its answers arrived cannot receive them any
 * more, and the SDK does not cancel the calls: cancel them as if the client had sent
 * `notifications/cancelled`, so their processes die and later calls are not held behind them.
 */
function cancelOnDisconnect(session: Session, response: ServerResponse, body: unknown): void {
	const ids = requestIdsOf(body);
	if (ids.length === 0) return;
	response.once("close", () => {
		if (response.writableFinished) return;
		for (const requestId of ids) {
			session.transport.onmessage?.({
				jsonrpc: "2.0",
				method: "notifications/cancelled",
				params: { requestId, reason: "The HTTP client disconnected before the answer." },
			});
		}
	});
}

/**
 * Serves MCP over Streamable HTTP on a loopback address, one MCP server per client session
 * (the `mcp-session-id` header). Host and Origin headers are checked so a web page cannot reach
 * the tools through the user's browser.
 */
export async function startMcpHttpServer(options: McpHttpServerOptions): Promise<McpHttpServer> {
	if (!isLoopbackHost(options.host)) {
		throw new Error(
			`Refusing to serve MCP on ${options.host}: the tools run commands and write files without authentication, ` +
				"so only loopback addresses (127.0.0.1, ::1, localhost) are allowed.",
		);
	}
	const path = options.path ?? "/mcp";
	const sessions = new Map<string, Session>();

	const endSession = async (session: Session) => {
		const id = session.transport.sessionId;
		if (id) sessions.delete(id);
		await session.mcp.close();
	};

	const handle = async (request: IncomingMessage, response: ServerResponse) => {
		const url = new URL(request.url ?? "/", "http://localhost");
		if (url.pathname !== path) return reject(response, 404, `Not found: the MCP endpoint is ${path}.`);
		if (!isTrustedRequest(request)) return reject(response, 403, "Forbidden: Host and Origin must be loopback.");
		const sessionId = request.headers["mcp-session-id"];
		let body: unknown;
		if (request.method === "POST") {
			const read = await readBody(request);
			if (!read.ok) return reject(response, read.status, read.message, read.status === 400 ? -32700 : -32000);
			body = read.value;
		}
		if (typeof sessionId === "string") {
			const session = sessions.get(sessionId);
			if (!session) return reject(response, 404, "Session not found; initialize a new session.");
			trackActivity(session, response);
			if (request.method === "POST") cancelOnDisconnect(session, response, body);
			return session.transport.handleRequest(request, response, body);
		}
		if (request.method !== "POST") return reject(response, 400, "Bad request: no mcp-session-id header.");
		const mcp = options.createSession();
		const transport = new StreamableHTTPServerTransport({
			sessionIdGenerator: () => randomUUID(),
			onsessioninitialized: (id) => {
				sessions.set(id, session);
			},
		});
		const session: Session = { transport, mcp, openRequests: 0, lastActive: Date.now() };
		transport.onclose = () => {
			void endSession(session);
		};
		await mcp.connect(transport);
		await transport.handleRequest(request, response, body);
		// Not an initialize request: the transport answered with an error and no session exists.
		if (!transport.sessionId) await mcp.close();
	};

	const idleMs = options.sessionIdleMs ?? 30 * 60_000;
	const sweep = setInterval(
		() => {
			const now = Date.now();
			for (const session of sessions.values()) {
				if (session.openRequests > 0 || session.mcp.activeCalls > 0 || now - session.lastActive < idleMs) continue;
				options.log?.(
					`mcp http: ending session ${session.transport.sessionId}, idle for ${Math.round(idleMs / 1000)} s`,
				);
				void endSession(session);
			}
		},
		Math.min(Math.max(idleMs / 2, 10), 60_000),
	);
	sweep.unref();

	const http = createServer((request, response) => {
		handle(request, response).catch((error: unknown) => {
			options.log?.(`mcp http: ${error instanceof Error ? error.message : String(error)}`);
			if (!response.headersSent) reject(response, 500, "Internal server error.");
			else response.end();
		});
	});
	await new Promise<void>((resolve, rejectListen) => {
		http.once("error", rejectListen);
		http.listen(options.port, options.host, () => {
			http.off("error", rejectListen);
			resolve();
		});
	});
	const address = http.address() as AddressInfo;
	const hostText = address.family === "IPv6" ? `[${address.address}]` : address.address;
	return {
		url: `http://${hostText}:${address.port}${path}`,
		get sessionCount() {
			return sessions.size;
		},
		async close() {
			clearInterval(sweep);
			await Promise.all([...sessions.values()].map(endSession));
			http.closeAllConnections();
			await new Promise<void>((resolve) => http.close(() => resolve()));
		},
	};
}
