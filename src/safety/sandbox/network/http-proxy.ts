// The HTTP side of the proxy: `CONNECT host:port` tunnels (HTTPS, and anything a client tunnels)
// and plain `http://` requests in absolute form, as `HTTP_PROXY`/`HTTPS_PROXY`-aware tools send them.
import {
	createServer,
	request as httpRequest,
	type IncomingHttpHeaders,
	type IncomingMessage,
	type Server,
	type ServerResponse,
} from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { hopByHopHeaders as hopByHop, refusalResponse } from "./plain-handoff.js";
import { matchingRule, normalizeHost } from "./policy.js";
import { type ProxySecrets, placeholderScanner } from "./secrets/index.js";
import { hasBody, scrubbedHeaders, secretScrubber } from "./secrets/scrub.js";
import { handOffTunnel, headTimeoutMs, judge, openTunnel, type ProxyContext, startTunnel } from "./tunnel.js";

/** `host:port` of a CONNECT request, with `[v6]:port` understood. */
function connectTarget(target: string): { host: string; port: number } | undefined {
	const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(target);
	if (!match) return undefined;
	const port = Number(match[2]);
	return port >= 1 && port <= 65535 ? { host: match[1] ?? "", port } : undefined;
}

async function onConnect(context: ProxyContext, request: IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
	const destination = connectTarget(request.url ?? "");
	if (!destination) {
		client.end(
			refusalResponse(`"CONNECT ${request.url}" names no host:port`).replace("403 Forbidden", "400 Bad Request"),
		);
		return;
	}
	if (context.secrets?.table.belongsTo(normalizeHost(destination.host), destination.port)) {
		await terminateConnect(context, context.secrets, destination, client);
		return;
	}
	const opening = await openTunnel(context, destination, "connect");
	if (opening.kind === "refused") {
		client.end(refusalResponse(opening.reason));
		return;
	}
	if (opening.kind === "unreachable") {
		client.end(refusalResponse(opening.reason).replace("403 Forbidden", "502 Bad Gateway"));
		return;
	}
	if (opening.kind === "handoff") {
		handOffTunnel(client as Socket, opening, context, "connect", head);
		return;
	}
	client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
	startTunnel(client as Socket, opening, context, head);
}

/** A CONNECT to a host a secret belongs to: judged, then its TLS ended here (secrets/terminate.ts). */
async function terminateConnect(
	context: ProxyContext,
	secrets: ProxySecrets,
	destination: { host: string; port: number },
	client: Duplex,
): Promise<void> {
	const { decision, record } = await judge(context, destination, "connect");
	if (!decision.allowed) {
		client.end(refusalResponse(decision.reason));
		return;
	}
	client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
	secrets.terminate(client as Socket, {
		host: normalizeHost(destination.host),
		port: destination.port,
		address: decision.address,
		record,
		audit: context.audit,
		call: context.call,
		headTimeoutMs: context.headTimeoutMs ?? headTimeoutMs,
	});
}

/** The bytes of a request's head as the command sent it (request line, header lines, blank line). */
function headBytes(request: IncomingMessage): number {
	let size = Buffer.byteLength(`${request.method} ${request.url} HTTP/${request.httpVersion}\r\n`, "latin1");
	for (let index = 0; index + 1 < request.rawHeaders.length; index += 2) {
		size += Buffer.byteLength(`${request.rawHeaders[index]}: ${request.rawHeaders[index + 1]}\r\n`, "latin1");
	}
	return size + 2;
}

function forwardedHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
	const kept: IncomingHttpHeaders = {};
	for (const [name, value] of Object.entries(headers)) if (!hopByHop.has(name)) kept[name] = value;
	kept.connection = "close";
	return kept;
}

async function onRequest(context: ProxyContext, request: IncomingMessage, response: ServerResponse): Promise<void> {
	let url: URL;
	try {
		url = new URL(request.url ?? "");
	} catch {
		response
			.writeHead(400, { "content-type": "text/plain" })
			.end("toolbelt sandbox: this is a proxy; send absolute http:// URLs or CONNECT\n");
		return;
	}
	if (url.protocol !== "http:") {
		response
			.writeHead(400, { "content-type": "text/plain" })
			.end(`toolbelt sandbox: ${url.protocol} is not proxied as a plain request; use CONNECT\n`);
		return;
	}
	const destination = { host: url.hostname, port: Number(url.port || 80) };
	const { decision, record } = await judge(context, destination, "http");
	if (!decision.allowed) {
		response
			.writeHead(403, { "content-type": "text/plain; charset=utf-8" })
			.end(`toolbelt sandbox: ${decision.reason}\n`);
		return;
	}
	let headers = forwardedHeaders(request.headers);
	let scrub = false;
	if (context.secrets) {
		const masked = context.secrets.table.mask(
			request.url ?? "",
			headers,
			normalizeHost(url.hostname),
			destination.port,
		);
		if (masked.refused) {
			context.audit.decided({ ...record, allowed: false, reason: masked.reason, closed: true }, context.call);
			response
				.writeHead(403, { "content-type": "text/plain; charset=utf-8" })
				.end(`toolbelt sandbox: ${masked.reason}\n`);
			return;
		}
		headers = masked.headers;
		// An answer with the secret echoed is read for it (secrets/scrub.ts): uncompressed.
		scrub = masked.replaced > 0;
		if (scrub) headers["accept-encoding"] = "identity";
	}
	// The host picks its site by the Host header: it must name the site that was judged (RFC 9112
	// 3.2.2: a proxy replaces it with the target's authority), or one address would serve a denied
	// site that shares it (a CDN, a shared server) to a request naming an allowed one.
	headers.host = url.host;
	const outgoing = httpRequest({
		host: decision.address,
		port: destination.port,
		method: request.method,
		path: `${url.pathname}${url.search}`,
		headers,
		agent: false,
		setHost: false,
	});
	// Bytes mean what they mean for a tunnel: what the command sent and got back, heads included
	// (the request's head as it came, the response as written to the command, framing and all).
	record.bytesSent = headBytes(request);
	const socket = request.socket;
	const writtenBefore = socket.bytesWritten;
	const received = () => {
		record.bytesReceived = Math.max(0, socket.bytesWritten - writtenBefore);
	};
	let settled = false;
	const close = () => {
		if (settled) return;
		settled = true;
		received();
		context.audit.closed(record, context.call);
	};
	outgoing.on("response", (incoming) => {
		const table = scrub ? context.secrets?.table : undefined;
		const rewrite = table !== undefined && hasBody(request.method, incoming);
		const answerHeaders = forwardedHeaders(incoming.headers);
		response.writeHead(
			incoming.statusCode ?? 502,
			table ? scrubbedHeaders(table, answerHeaders, rewrite) : answerHeaders,
		);
		incoming.on("data", received);
		if (rewrite && table) incoming.pipe(secretScrubber(table)).pipe(response);
		else incoming.pipe(response);
		incoming.on("end", close);
	});
	outgoing.on("error", (error) => {
		if (!response.headersSent) response.writeHead(502, { "content-type": "text/plain" });
		response.end(`toolbelt sandbox: ${destination.host}:${destination.port}: ${error.message}\n`);
		close();
	});
	request.on("data", (chunk: Buffer) => {
		record.bytesSent += chunk.length;
	});
	const secrets = context.secrets;
	if (secrets) {
		// The body is read as it goes: a placeholder that does not belong to this host stops it there.
		const host = normalizeHost(url.hostname);
		let reason = "";
		const scanner = placeholderScanner(
			secrets.table,
			(secret) => {
				reason = secrets.table.refusal(secret, host, destination.port);
				context.audit.decided({ ...record, allowed: false, reason, closed: true }, context.call);
			},
			(secret) => matchingRule(secret.rules, host, destination.port) !== undefined,
		);
		scanner.on("error", () => {
			outgoing.destroy();
			if (response.headersSent) response.destroy();
			else
				response.writeHead(403, { "content-type": "text/plain; charset=utf-8" }).end(`toolbelt sandbox: ${reason}\n`);
		});
		request.pipe(scanner).pipe(outgoing);
	} else request.pipe(outgoing);
	response.on("close", () => {
		outgoing.destroy();
		close();
	});
}

/**
 * Closes `socket` unless a request head arrives within `ms`. Node checks `headersTimeout` only on
 * servers that listen, and the proxy's HTTP servers never do: without this, a client that sends
 * half a head (or nothing) would hold its socket for as long as its command runs.
 */
export function awaitHead(socket: Socket, ms: number): void {
	socket.setTimeout(ms);
	socket.once("timeout", () => socket.destroy());
}

/** The head came: the deadline is lifted (a tunnel has its own idle timeout, keep-alive Node's). */
export function headArrived(socket: Socket): void {
	socket.setTimeout(0);
}

/** An HTTP proxy server that is never listened on: connections are handed to it with `emit("connection")`. */
export function createHttpProxy(contextOf: (socket: Socket) => ProxyContext): Server {
	const server = createServer({ requestTimeout: 0 });
	server.on("connection", (socket: Socket) => awaitHead(socket, contextOf(socket).headTimeoutMs ?? headTimeoutMs));
	server.on("connect", (request: IncomingMessage, client: Duplex, head: Buffer) => {
		headArrived(request.socket);
		void onConnect(contextOf(request.socket), request, client, head).catch(() => client.destroy());
	});
	server.on("request", (request: IncomingMessage, response: ServerResponse) => {
		headArrived(request.socket);
		void onRequest(contextOf(request.socket), request, response).catch(() => response.destroy());
	});
	return server;
}
