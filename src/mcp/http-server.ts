import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { monotonicMs } from "../engine/index.js";
import { bearerChallenge, generateMcpToken, hasBearerToken, mcpTokenProblem } from "./http-auth.js";
import { addCorsHeaders, answerPreflight, normalizeOrigin, originProblem } from "./http-origin.js";
import { isLoopbackHost } from "./loopback.js";
import {
	DEFAULT_MAX_MESSAGE_BYTES,
	messageTooDeepText,
	messageTooLargeText,
	nestedDeeperThan,
} from "./message-limit.js";
import { loadHttpServerTransport } from "./sdk-transports.js";
import type { ToolbeltMcpServer } from "./server.js";

/** Options of `startMcpHttpServer`. */
export interface McpHttpServerOptions {
	/** A loopback address: `127.0.0.1`, `::1` or `localhost`. Anything else is refused (plain HTTP, no TLS). */
	host: string;
	/** The port; 0 picks a free one (read it from `url`). */
	port: number;
	/** Creates the MCP server of one client session. */
	createSession: () => ToolbeltMcpServer;
	/** The endpoint path. Default: `/mcp`. */
	path?: string;
	/** The largest request body read, in bytes; a larger one gets 413 and is not buffered. Default: 8 MiB. */
	maxMessageBytes?: number;
	/** Receives diagnostics. Default: none. */
	log?: (message: string) => void;
	/**
	 * A session with no open request and no running call for this long is ended, so clients that
	 * vanish without closing their session do not pile up, in ms. Default: 30 minutes.
	 */
	sessionIdleMs?: number;
	/**
	 * The bearer token every request must carry (`Authorization: Bearer <token>`); at least 16
	 * visible ASCII characters. Default: a fresh 256-bit random token per start, readable from the
	 * result's `token`. Must not be given with `auth: false`.
	 */
	token?: string;
	/**
	 * `false` serves without a token: every local user and every local process can then run the
	 * tools as you. Only for a machine (or container) nobody else uses. Default: true.
	 */
	auth?: boolean;
	/**
	 * Browser origins allowed to call the endpoint, e.g. `http://localhost:6274` (exact
	 * `scheme://host:port`; they still need the token). Requests with any other `Origin` header get
	 * 403, so a web page open in the user's browser cannot drive the tools. Default: none — only
	 * clients that send no `Origin` (programs, not browsers).
	 */
	allowedOrigins?: readonly string[];
}

/** A running Streamable HTTP endpoint. */
export interface McpHttpServer {
	/** The endpoint, e.g. `http://127.0.0.1:41234/mcp`. */
	readonly url: string;
	/** The bearer token clients must send, or undefined when serving with `auth: false`. */
	readonly token: string | undefined;
	/** Open client sessions. */
	readonly sessionCount: number;
	/** Ends every session (aborting its running calls) and stops listening. */
	close(): Promise<void>;
}

function reject(
	response: ServerResponse,
	status: number,
	message: string,
	code = -32000,
	headers: Record<string, string> = {},
): void {
	response.writeHead(status, { "content-type": "application/json", ...headers });
	response.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}

interface Session {
	transport: StreamableHTTPServerTransport;
	mcp: ToolbeltMcpServer;
	/** Requests (POSTs, the GET event stream) whose response is still open. */
	openRequests: number;
	/** When the last request arrived or ended (a `monotonicMs()` reading). */
	lastActive: number;
}

/** Counts `response` as activity of `session` until it closes. */
function trackActivity(session: Session, response: ServerResponse): void {
	session.openRequests++;
	session.lastActive = monotonicMs();
	response.once("close", () => {
		session.openRequests--;
		session.lastActive = monotonicMs();
	});
}

/** A body read, or why not: the HTTP status, the text and the JSON-RPC code of the answer. */
type Body = { ok: true; value: unknown } | { ok: false; status: number; message: string; code: number };

/** Reads and parses a POST body, bounded; the transport then gets it pre-parsed. */
async function readBody(request: IncomingMessage, maxBytes: number): Promise<Body> {
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of request as AsyncIterable<Buffer>) {
		size += chunk.length;
		if (size > maxBytes) {
			return {
				ok: false,
				status: 413,
				message: messageTooLargeText(maxBytes),
				code: -32000,
			};
		}
		chunks.push(chunk);
	}
	const text = Buffer.concat(chunks).toString("utf8");
	if (nestedDeeperThan(text)) return { ok: false, status: 400, message: messageTooDeepText(), code: -32600 };
	try {
		return { ok: true, value: JSON.parse(text) };
	} catch {
		return { ok: false, status: 400, message: "Parse error: the request body is not valid JSON.", code: -32700 };
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

/** Who may call the endpoint: the token (undefined with `auth: false`) and the allowed browser origins. */
interface AccessPolicy {
	token: string | undefined;
	allowedOrigins: ReadonlySet<string>;
}

/** Checks the access options once at start; a contradiction or a weak token is a programmer error. */
function accessPolicy(options: McpHttpServerOptions): AccessPolicy {
	if (options.auth === false && options.token !== undefined) {
		throw new Error("startMcpHttpServer: `token` and `auth: false` contradict each other; pass one of them.");
	}
	const problem = options.token === undefined ? undefined : mcpTokenProblem(options.token, "The `token` option");
	if (problem) throw new Error(`startMcpHttpServer: ${problem}`);
	const allowedOrigins = new Set<string>();
	for (const origin of options.allowedOrigins ?? []) {
		const normalized = normalizeOrigin(origin);
		if (normalized === undefined) {
			throw new Error(
				`startMcpHttpServer: allowed origin ${JSON.stringify(origin)} is not an origin; write scheme://host[:port], e.g. http://localhost:6274.`,
			);
		}
		allowedOrigins.add(normalized);
	}
	return { token: options.auth === false ? undefined : (options.token ?? generateMcpToken()), allowedOrigins };
}

/** What every request handler of one server shares. */
interface ServerState {
	options: McpHttpServerOptions;
	access: AccessPolicy;
	/** The endpoint path. */
	path: string;
	/** Open sessions by `mcp-session-id`. */
	sessions: Map<string, Session>;
	/** The SDK's transport class, loaded as the server starts (`sdk-transports.ts`). */
	Transport: typeof StreamableHTTPServerTransport;
}

async function endSession(state: ServerState, session: Session): Promise<void> {
	const id = session.transport.sessionId;
	if (id) state.sessions.delete(id);
	await session.mcp.close();
}

const UNAUTHORIZED_TEXT =
	"Unauthorized: send the header 'Authorization: Bearer <token>'. The token is printed on the server's stderr " +
	"when `toolbelt mcp --http` starts (or is the value of TOOLBELT_MCP_TOKEN / the --token-file the server was started with).";

/**
 * 401 with the text a client can show. At the endpoint the body is a JSON-RPC error. Elsewhere it
 * is an OAuth error (RFC 6749 §5.2): an MCP client with OAuth support answers any 401 by discovering
 * OAuth metadata and registering at this server (`/.well-known/…`, `/register`); this server has
 * no OAuth, and the error such a client then reports is this body's `error_description`.
 */
function refuseUnauthorized(request: IncomingMessage, response: ServerResponse, atEndpoint: boolean): void {
	const challenge = { "www-authenticate": bearerChallenge(request) };
	if (atEndpoint) {
		reject(response, 401, UNAUTHORIZED_TEXT, -32001, challenge);
		return;
	}
	response.writeHead(401, { "content-type": "application/json", ...challenge });
	response.end(JSON.stringify({ error: "invalid_token", error_description: UNAUTHORIZED_TEXT }));
}

/**
 * Answers (and returns true for) a request that must not reach MCP: a foreign Host or Origin (403),
 * a CORS preflight of an allowed origin (204), a missing or wrong token (401), another path (404).
 * The token is checked before anything that could start a session or a tool.
 */
function refused(state: ServerState, request: IncomingMessage, response: ServerResponse): boolean {
	const forbidden = originProblem(request, state.access.allowedOrigins);
	if (forbidden) {
		reject(response, 403, forbidden);
		return true;
	}
	if (answerPreflight(request, response)) return true;
	addCorsHeaders(request, response);
	const token = state.access.token;
	const url = new URL(request.url ?? "/", "http://localhost");
	if (token !== undefined && !hasBearerToken(request, token)) {
		refuseUnauthorized(request, response, url.pathname === state.path);
		return true;
	}
	if (url.pathname !== state.path) {
		reject(response, 404, `Not found: the MCP endpoint is ${state.path}.`);
		return true;
	}
	return false;
}

/** Creates the session of an initialize POST (the transport answers anything else with an error). */
async function openSession(
	state: ServerState,
	request: IncomingMessage,
	response: ServerResponse,
	body: unknown,
): Promise<void> {
	const mcp = state.options.createSession();
	const transport = new state.Transport({
		sessionIdGenerator: () => randomUUID(),
		onsessioninitialized: (id) => {
			state.sessions.set(id, session);
		},
	});
	const session: Session = { transport, mcp, openRequests: 0, lastActive: monotonicMs() };
	transport.onclose = () => {
		void endSession(state, session);
	};
	await mcp.connect(transport);
	await transport.handleRequest(request, response, body);
	// Not an initialize request: the transport answered with an error and no session exists.
	if (!transport.sessionId) await mcp.close();
}

async function handleRequest(state: ServerState, request: IncomingMessage, response: ServerResponse): Promise<void> {
	if (refused(state, request, response)) return;
	const sessionId = request.headers["mcp-session-id"];
	let body: unknown;
	if (request.method === "POST") {
		const read = await readBody(request, state.options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES);
		if (!read.ok) return reject(response, read.status, read.message, read.code);
		body = read.value;
	}
	if (typeof sessionId === "string") {
		const session = state.sessions.get(sessionId);
		if (!session) return reject(response, 404, "Session not found; initialize a new session.");
		trackActivity(session, response);
		if (request.method === "POST") cancelOnDisconnect(session, response, body);
		return session.transport.handleRequest(request, response, body);
	}
	if (request.method !== "POST") return reject(response, 400, "Bad request: no mcp-session-id header.");
	await openSession(state, request, response, body);
}

/** Ends, every so often, the sessions idle for `sessionIdleMs`; returns the timer to clear on close. */
function startIdleSweep(state: ServerState): NodeJS.Timeout {
	const idleMs = state.options.sessionIdleMs ?? 30 * 60_000;
	const sweep = setInterval(
		() => {
			const now = monotonicMs();
			for (const session of state.sessions.values()) {
				if (session.openRequests > 0 || session.mcp.activeCalls > 0 || now - session.lastActive < idleMs) continue;
				state.options.log?.(
					`mcp http: ending session ${session.transport.sessionId}, idle for ${Math.round(idleMs / 1000)} s`,
				);
				void endSession(state, session);
			}
		},
		Math.min(Math.max(idleMs / 2, 10), 60_000),
	);
	sweep.unref();
	return sweep;
}

/**
 * Serves MCP over Streamable HTTP on a loopback address, one MCP server per client session
 * (the `mcp-session-id` header). Every request must carry the bearer token (`token`, or a fresh
 * random one returned as `token`) unless `auth: false`; the Host header must be loopback (DNS
 * rebinding) and a request with an `Origin` header is refused unless that origin is in
 * `allowedOrigins`, so neither another local user nor a web page in the user's browser can reach
 * the tools.
 *
 * @example
 * const server = await startMcpHttpServer({
 *   host: "127.0.0.1",
 *   port: 0,
 *   createSession: () => createMcpServer({ tools: createCodingTools(process.cwd()) }),
 * });
 * // A client sends: Authorization: Bearer ${server.token}
 * console.error(`MCP at ${server.url}`);
 */
export async function startMcpHttpServer(options: McpHttpServerOptions): Promise<McpHttpServer> {
	if (!isLoopbackHost(options.host)) {
		throw new Error(
			`Refusing to serve MCP on ${options.host}: the endpoint is plain HTTP (the token would cross the network in clear text), ` +
				"so only loopback addresses (127.0.0.1, ::1, localhost) are allowed.",
		);
	}
	const state: ServerState = {
		options,
		access: accessPolicy(options),
		path: options.path ?? "/mcp",
		sessions: new Map(),
		Transport: await loadHttpServerTransport(),
	};
	const sweep = startIdleSweep(state);
	const http = createServer((request, response) => {
		handleRequest(state, request, response).catch((error: unknown) => {
			options.log?.(`mcp http: ${error instanceof Error ? error.message : String(error)}`);
			if (!response.headersSent) reject(response, 500, "Internal server error.");
			else response.end();
		});
	});
	try {
		await new Promise<void>((resolve, rejectListen) => {
			http.once("error", rejectListen);
			http.listen(options.port, options.host, () => {
				http.off("error", rejectListen);
				resolve();
			});
		});
	} catch (error) {
		clearInterval(sweep);
		throw error;
	}
	const address = http.address() as AddressInfo;
	const hostText = address.family === "IPv6" ? `[${address.address}]` : address.address;
	return {
		url: `http://${hostText}:${address.port}${state.path}`,
		token: state.access.token,
		get sessionCount() {
			return state.sessions.size;
		},
		async close() {
			clearInterval(sweep);
			await Promise.all([...state.sessions.values()].map((session) => endSession(state, session)));
			http.closeAllConnections();
			await new Promise<void>((resolve) => http.close(() => resolve()));
		},
	};
}
