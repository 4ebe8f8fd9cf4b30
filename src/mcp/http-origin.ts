import type { IncomingMessage, ServerResponse } from "node:http";
import { isLoopbackHost } from "./loopback.js";

/**
 * The canonical form of a web origin (`scheme://host[:port]`, lowercase, default port dropped), or
 * undefined when `text` is not one (a path, query or fragment, a wildcard, `null`).
 */
export function normalizeOrigin(text: string): string | undefined {
	let url: URL;
	try {
		url = new URL(text);
	} catch {
		return undefined;
	}
	if (url.host === "" || url.username !== "" || url.password !== "") return undefined;
	if (url.search !== "" || url.hash !== "" || (url.pathname !== "" && url.pathname !== "/")) return undefined;
	if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return undefined;
	return `${url.protocol}//${url.host}`.toLowerCase();
}

function hostnameOf(header: string): string {
	if (header.startsWith("[")) return header.slice(0, header.indexOf("]") + 1);
	return header.split(":")[0] ?? "";
}

/** Why a request is refused before authentication, or undefined when its Host and Origin pass. */
export function originProblem(request: IncomingMessage, allowedOrigins: ReadonlySet<string>): string | undefined {
	// A DNS-rebinding page reaches 127.0.0.1 under its own host name: only loopback names are served.
	const host = request.headers.host;
	if (!host || !isLoopbackHost(hostnameOf(host))) {
		return "Forbidden: the Host header must name a loopback address (127.0.0.1, ::1, localhost).";
	}
	const origin = request.headers.origin;
	// Browsers always send Origin on cross-site and on POST requests; MCP clients that are programs send none.
	if (origin === undefined) return undefined;
	const normalized = normalizeOrigin(origin);
	if (normalized !== undefined && allowedOrigins.has(normalized)) return undefined;
	return (
		`Forbidden: requests from the web origin ${JSON.stringify(origin)} are not accepted. ` +
		"A browser-based client must be allowed explicitly when the server starts: toolbelt mcp --http … --allow-origin <origin>."
	);
}

const allowedRequestHeaders =
	"authorization, content-type, accept, mcp-session-id, mcp-protocol-version, last-event-id";

/**
 * Adds the CORS headers that let an allowed browser origin read the answer (and its session id).
 * Called only after `originProblem` passed; a request without Origin gets none.
 */
export function addCorsHeaders(request: IncomingMessage, response: ServerResponse): void {
	const origin = request.headers.origin;
	if (origin === undefined) return;
	response.setHeader("access-control-allow-origin", origin);
	response.setHeader("vary", "Origin");
	response.setHeader("access-control-expose-headers", "mcp-session-id, mcp-protocol-version, www-authenticate");
}

/**
 * Answers a CORS preflight (`OPTIONS` with `Access-Control-Request-Method`) of an allowed origin.
 * Browsers send preflights without credentials, so this runs before the token check; it runs no tool.
 * Returns false when `request` is not a preflight.
 */
export function answerPreflight(request: IncomingMessage, response: ServerResponse): boolean {
	if (request.method !== "OPTIONS" || request.headers.origin === undefined) return false;
	if (request.headers["access-control-request-method"] === undefined) return false;
	addCorsHeaders(request, response);
	response.setHeader("access-control-allow-methods", "GET, POST, DELETE");
	response.setHeader("access-control-allow-headers", allowedRequestHeaders);
	response.setHeader("access-control-max-age", "600");
	if (request.headers["access-control-request-private-network"] === "true") {
		response.setHeader("access-control-allow-private-network", "true");
	}
	response.writeHead(204);
	response.end();
	return true;
}
