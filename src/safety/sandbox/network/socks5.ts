// A SOCKS5 server side (RFC 1928), CONNECT only and without authentication: what git over SSH,
// `curl --socks5-hostname` and other TCP clients use. Names are sent by the client unresolved
// (`socks5h`), so the proxy resolves and judges them; BIND and UDP ASSOCIATE are refused.
import type { Socket } from "node:net";
import { handOffTunnel, openTunnel, type ProxyContext, startTunnel } from "./tunnel.js";

const version = 5;
const reply = {
	succeeded: 0,
	generalFailure: 1,
	notAllowed: 2,
	hostUnreachable: 4,
	commandNotSupported: 7,
	addressNotSupported: 8,
};
const handshakeTimeoutMs = 10_000;
const maximumHandshakeBytes = 600;

/** Reads bytes from `socket` until `complete` says how many make a whole message. */
function readMessage(
	socket: Socket,
	buffered: Buffer,
	complete: (data: Buffer) => number | undefined,
): Promise<[Buffer, Buffer]> {
	return new Promise((resolve, reject) => {
		let data = buffered;
		const check = () => {
			const length = complete(data);
			if (length !== undefined && data.length >= length) {
				socket.off("data", onData);
				socket.pause();
				resolve([data.subarray(0, length), data.subarray(length)]);
				return true;
			}
			if (data.length > maximumHandshakeBytes) reject(new Error("handshake too long"));
			return false;
		};
		const onData = (chunk: Buffer) => {
			data = Buffer.concat([data, chunk]);
			check();
		};
		if (check()) return;
		socket.on("data", onData);
		socket.resume();
	});
}

const greetingLength = (data: Buffer) => (data.length < 2 ? undefined : 2 + (data[1] ?? 0));

function requestLength(data: Buffer): number | undefined {
	if (data.length < 5) return undefined;
	const type = data[3];
	if (type === 1) return 10;
	if (type === 4) return 22;
	if (type === 3) return 7 + (data[4] ?? 0);
	return data.length; // an unknown type: judged (and refused) as it is
}

function destinationOf(request: Buffer): { host: string; port: number } | undefined {
	const type = request[3];
	const port = request.readUInt16BE(request.length - 2);
	if (type === 1) return { host: [...request.subarray(4, 8)].join("."), port };
	if (type === 3) return { host: request.subarray(5, 5 + (request[4] ?? 0)).toString("latin1"), port };
	if (type === 4) {
		const groups: string[] = [];
		for (let offset = 4; offset < 20; offset += 2) groups.push(request.readUInt16BE(offset).toString(16));
		return { host: groups.join(":"), port };
	}
	return undefined;
}

const answer = (code: number) => Buffer.from([version, code, 0, 1, 0, 0, 0, 0, 0, 0]);

/** Serves one SOCKS5 connection from the sandbox: handshake, judgement, then the tunnel. */
export async function serveSocks(client: Socket, context: ProxyContext, buffered: Buffer): Promise<void> {
	client.setTimeout(handshakeTimeoutMs, () => client.destroy());
	const [greeting, rest] = await readMessage(client, buffered, greetingLength);
	if (greeting[0] !== version || !greeting.subarray(2).includes(0)) {
		client.end(Buffer.from([version, 0xff]));
		return;
	}
	client.write(Buffer.from([version, 0]));
	const [request, early] = await readMessage(client, rest, requestLength);
	if (request[1] !== 1) {
		client.end(answer(reply.commandNotSupported));
		return;
	}
	const destination = destinationOf(request);
	if (!destination) {
		client.end(answer(reply.addressNotSupported));
		return;
	}
	const opening = await openTunnel(context, destination, "socks");
	if (opening.kind === "refused" || opening.kind === "unreachable") {
		client.end(answer(opening.kind === "refused" ? reply.notAllowed : reply.hostUnreachable));
		return;
	}
	client.setTimeout(0);
	if (opening.kind === "handoff") {
		handOffTunnel(client, opening, context, "socks", early);
		return;
	}
	client.write(answer(reply.succeeded));
	startTunnel(client, opening, context, early);
}
