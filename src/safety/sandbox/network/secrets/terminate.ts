// The proxy's side of TLS for a host a secret belongs to: after the CONNECT, the command's TLS is
// ended here with the session CA's certificate for that name, each request is read, its
// placeholders replaced (secret-table.ts), and sent on over a TLS connection of the proxy's own to
// the address the policy checked, verified against the system's CAs under the requested name.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { Agent, request as httpsRequest } from "node:https";
import { isIP, type Socket } from "node:net";
import { TLSSocket } from "node:tls";
import type { NetworkAudit, NetworkConnectionRecord } from "../audit.js";
import { hasBody, scrubbedHeaders, secretScrubber } from "./scrub.js";
import type { SecretTable } from "./secret-table.js";
import type { SessionCa } from "./session-ca.js";

/** Where a terminated connection goes, and its audit record. */
export interface TerminatedTarget {
	host: string;
	port: number;
	/** The address the policy checked (connected to; never resolved again). */
	address: string;
	record: NetworkConnectionRecord;
	audit: NetworkAudit;
	call: string | undefined;
	/** How long the command may take to finish its TLS handshake and send its first request. */
	headTimeoutMs: number;
}

const hopByHop = new Set([
	"connection",
	"keep-alive",
	"proxy-connection",
	"proxy-authorization",
	"te",
	"trailer",
	"upgrade",
]);

function withoutHopByHop(headers: IncomingMessage["headers"]): Record<string, string | string[] | undefined> {
	const kept: Record<string, string | string[] | undefined> = {};
	for (const [name, value] of Object.entries(headers)) if (!hopByHop.has(name)) kept[name] = value;
	return kept;
}

/** `host[:port]` as a `Host` header writes it (the port left out when it is HTTPS's own, an IPv6 address in brackets). */
function authorityOf(host: string, port: number): string {
	const name = host.includes(":") ? `[${host}]` : host;
	return port === 443 ? name : `${name}:${port}`;
}

function forward(
	table: SecretTable,
	agent: Agent,
	target: TerminatedTarget,
	request: IncomingMessage,
	response: ServerResponse,
): void {
	const { host, port, record } = target;
	const url = request.url ?? "/";
	const masked = table.mask(url, withoutHopByHop(request.headers), host, port);
	if (masked.refused) {
		target.audit.decided(
			{
				...record,
				time: Date.now(),
				allowed: false,
				reason: masked.reason,
				bytesSent: 0,
				bytesReceived: 0,
				closed: true,
			},
			target.call,
		);
		response
			.writeHead(403, { "content-type": "text/plain; charset=utf-8" })
			.end(`toolbelt sandbox: ${masked.reason}\n`);
		request.resume();
		return;
	}
	// The site is the one judged, whatever the command's Host header says: another site on the same
	// address (a CDN's) is not what the policy allowed. A request with a secret naming another site
	// was refused above, with the reason.
	const headers: Record<string, string | string[] | undefined> = { ...masked.headers, host: authorityOf(host, port) };
	// An answer to a request that got a secret is read for its value (scrub.ts): it must come as
	// text, not compressed, or an echo of the value would pass unread.
	const scrub = masked.replaced > 0;
	if (scrub) headers["accept-encoding"] = "identity";
	const outgoing = httpsRequest({
		host: target.address,
		port,
		// The certificate is checked under the name the command asked for, not the address.
		servername: isIP(host) === 0 ? host : undefined,
		method: request.method,
		path: url,
		headers,
		agent,
		setHost: false,
	});
	outgoing.on("response", (incoming) => {
		const rewrite = scrub && hasBody(request.method, incoming);
		const answerHeaders = withoutHopByHop(incoming.headers);
		response.writeHead(
			incoming.statusCode ?? 502,
			scrub ? scrubbedHeaders(table, answerHeaders, rewrite) : answerHeaders,
		);
		incoming.on("data", (chunk: Buffer) => {
			record.bytesReceived += chunk.length;
		});
		if (rewrite) incoming.pipe(secretScrubber(table)).pipe(response);
		else incoming.pipe(response);
	});
	outgoing.on("error", (error) => {
		if (!response.headersSent) response.writeHead(502, { "content-type": "text/plain; charset=utf-8" });
		response.end(`toolbelt sandbox: ${host}:${port}: ${error.message}\n`);
	});
	request.on("data", (chunk: Buffer) => {
		record.bytesSent += chunk.length;
	});
	request.pipe(outgoing);
	response.on("close", () => {
		if (!outgoing.writableFinished) outgoing.destroy();
	});
}

/**
 * The function that takes over a CONNECT'd socket to a host a secret belongs to (after the `200`):
 * it speaks TLS to the command as that host and serves its HTTP/1.1 requests as described above.
 */
export function createTerminator(
	ca: SessionCa,
	table: SecretTable,
): (client: Socket, target: TerminatedTarget) => void {
	const targets = new WeakMap<object, TerminatedTarget>();
	/** Each TLS socket's connection underneath, whose deadline the first request lifts. */
	const raw = new WeakMap<object, Socket>();
	const agent = new Agent({ keepAlive: true });
	const server = createServer({ requestTimeout: 0 });
	server.on("request", (request: IncomingMessage, response: ServerResponse) => {
		const target = targets.get(request.socket);
		if (!target) {
			response.destroy();
			return;
		}
		raw.get(request.socket)?.setTimeout(0);
		forward(table, agent, target, request, response);
	});
	return (client, target) => {
		const secure = new TLSSocket(client, {
			isServer: true,
			secureContext: ca.contextFor(target.host),
			ALPNProtocols: ["http/1.1"],
		});
		targets.set(secure, target);
		raw.set(secure, client);
		// A handshake that never ends (or no request after it) must not hold the socket.
		client.setTimeout(target.headTimeoutMs);
		client.once("timeout", () => client.destroy());
		let closed = false;
		const close = () => {
			if (closed) return;
			closed = true;
			target.audit.closed(target.record, target.call);
		};
		secure.on("error", () => secure.destroy());
		secure.on("close", close);
		client.on("close", close);
		server.emit("connection", secure);
		client.resume();
	};
}
