// A plain `http://` request through the proxy, handed to the launcher like a tunnel (handoff.ts)
// when nothing of it needs the proxy after its head: no body, no secret to put in or watch for.
// The head is read here, parsed by Node's HTTP parser (a server of its own, fed only the head),
// judged, and rewritten as the proxy's own path would send it (origin-form target, hop-by-hop
// headers dropped, `Connection: close`); the launcher connects to the judged address, sends it,
// and copies the answer back untouched. Anything else (CONNECT, a body, a head Node refuses) goes
// to the HTTP proxy as it came, its bytes put back.
import { createServer, type IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import { Duplex } from "node:stream";
import { judge, type ProxyContext } from "./tunnel.js";

const maximumHeadBytes = 64 * 1024;
const headTimeoutMs = 60_000;

/** Request headers that are about the hop to the proxy, never sent on (as the proxy's own path does). */
export const hopByHopHeaders = new Set([
	"connection",
	"keep-alive",
	"proxy-connection",
	"proxy-authorization",
	"proxy-authenticate",
	"te",
	"trailer",
	"upgrade",
]);

/** A refusal as a whole HTTP response (403, or `status`), the body naming the reason. */
export function refusalResponse(reason: string, status = "403 Forbidden"): string {
	const body = `toolbelt sandbox: ${reason}\n`;
	return `HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/** Reads up to the end of the first head; undefined (bytes unshifted) when there is none to take. */
function readHead(socket: Socket): Promise<Buffer | undefined> {
	return new Promise((resolve) => {
		let data = Buffer.alloc(0);
		const timer = setTimeout(() => done(undefined, true), headTimeoutMs);
		const done = (head: Buffer | undefined, giveBack: boolean) => {
			clearTimeout(timer);
			socket.off("data", onData);
			socket.off("end", onEnd);
			socket.pause();
			if (giveBack && data.length > 0) socket.unshift(data);
			else if (head && data.length > head.length) socket.unshift(data.subarray(head.length));
			resolve(head);
		};
		const onEnd = () => done(undefined, true);
		const onData = (chunk: Buffer) => {
			data = Buffer.concat([data, chunk]);
			if (data.subarray(0, 8).toString("latin1").startsWith("CONNECT ")) return done(undefined, true);
			const crlf = data.indexOf("\r\n\r\n");
			const lf = data.indexOf("\n\n");
			// A head ended by bare line feeds is left to Node's parser on the proxy's own path.
			if (lf !== -1 && (crlf === -1 || lf < crlf)) return done(undefined, true);
			if (crlf !== -1) return done(data.subarray(0, crlf + 4), false);
			if (data.length > maximumHeadBytes) done(undefined, true);
		};
		socket.on("data", onData);
		socket.on("end", onEnd);
		socket.resume();
	});
}

/** Parses a head with Node's parser; undefined when it refuses it or it asks for more than a plain request. */
function parseHead(head: Buffer): Promise<IncomingMessage | undefined> {
	return new Promise((resolve) => {
		const server = createServer();
		const stream = new Duplex({ read() {}, write: (_chunk, _encoding, callback) => callback() });
		let settled = false;
		const timer = setTimeout(() => done(undefined), 5_000);
		const done = (request: IncomingMessage | undefined) => {
			if (settled) return;
			settled = true;
			clearTimeout(timer);
			server.close();
			stream.destroy();
			resolve(request);
		};
		server.on("request", (request: IncomingMessage) => done(request));
		for (const event of ["clientError", "checkContinue", "checkExpectation", "connect", "upgrade"]) {
			server.on(event, () => done(undefined));
		}
		server.emit("connection", stream);
		stream.push(head);
	});
}

/**
 * The head the host gets: the target in origin form, `Host` naming the judged target's authority
 * (as the proxy's own path sends it), the command's other headers but the hop-by-hop ones.
 */
function upstreamHead(request: IncomingMessage, url: URL): Buffer {
	const lines = [`${request.method} ${url.pathname}${url.search} HTTP/${request.httpVersion}`, `Host: ${url.host}`];
	for (let index = 0; index + 1 < request.rawHeaders.length; index += 2) {
		const name = (request.rawHeaders[index] ?? "").toLowerCase();
		if (!hopByHopHeaders.has(name) && name !== "host")
			lines.push(`${request.rawHeaders[index]}: ${request.rawHeaders[index + 1]}`);
	}
	lines.push("Connection: close");
	return Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "latin1");
}

/**
 * Tries the launcher's path for a plain request on `socket` (a connection of kind `http` whose
 * launcher can take tunnels, in a session without secrets). True when it answered or handed the
 * request off; false with every byte put back, for the HTTP proxy.
 */
export async function handOffPlainRequest(socket: Socket, context: ProxyContext): Promise<boolean> {
	const handoff = context.handoff;
	if (!handoff || context.call === undefined || handoff.id === undefined) return false;
	const head = await readHead(socket);
	if (!head) return false;
	const putBack = () => {
		socket.unshift(head);
		return false;
	};
	const request = await parseHead(head);
	if (!request || request.method === "CONNECT") return putBack();
	const hasBody =
		request.headers["transfer-encoding"] !== undefined || Number(request.headers["content-length"] ?? 0) !== 0;
	let url: URL;
	try {
		url = new URL(request.url ?? "");
	} catch {
		return putBack();
	}
	if (hasBody || url.protocol !== "http:" || !/^1\.[01]$/.test(request.httpVersion)) return putBack();
	const destination = { host: url.hostname, port: Number(url.port || 80) };
	const { decision, record } = await judge(context, destination, "http");
	if (!decision.allowed) {
		socket.end(refusalResponse(decision.reason));
		return true;
	}
	handoff.controls.handOff({
		call: context.call,
		id: handoff.id,
		client: socket,
		record,
		trailer: {
			address: decision.address,
			port: destination.port,
			host: destination.host,
			reply: "http",
			sent: head.length,
		},
		early: upstreamHead(request, url),
	});
	return true;
}
