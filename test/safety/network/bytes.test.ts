// The audit's bytes mean the same whichever way a command reached the proxy: what the command sent
// and got back after the proxy's own handshake, heads included. A raw client on the proxy's socket
// (as the launcher joins a sandboxed connection to it) counts what it really sent and received.
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NetworkConnectionRecord } from "../../../src/safety/sandbox/network/audit.js";
import { parseNetworkPolicy } from "../../../src/safety/sandbox/network/policy.js";
import { type NetworkProxy, startNetworkProxy } from "../../../src/safety/sandbox/network/proxy-server.js";

let server: Server;
let port = 0;
let proxy: NetworkProxy;
let stateDir = "";
const closed: NetworkConnectionRecord[] = [];

beforeAll(async () => {
	server = createServer((request, response) => {
		request.resume();
		request.on("end", () => response.writeHead(200, { "x-test": "yes" }).end("b".repeat(3000)));
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	port = (server.address() as { port: number }).port;
	stateDir = await mkdtemp(join(tmpdir(), "toolbelt-proxy-bytes-"));
	proxy = await startNetworkProxy({
		stateDir,
		decide: {
			policy: parseNetworkPolicy(["bytes.test", `127.0.0.1:${port}`], []),
			hosts: { "bytes.test": "127.0.0.1" },
		},
		onConnection: (record) => {
			if (record.closed && record.allowed) closed.push({ ...record });
		},
	});
});

afterAll(async () => {
	await proxy?.close();
	server?.close();
	await rm(stateDir, { recursive: true, force: true });
});

/** Sends `preamble` then `request` (after `handshake` bytes came back, when given); counts both ways after it. */
function exchange(
	kind: string,
	handshake: string | undefined,
	request: string,
): Promise<{ sent: number; received: number }> {
	return new Promise((resolve, reject) => {
		const socket = connect(proxy.socketPath);
		let buffered = Buffer.alloc(0);
		let started = handshake === undefined;
		let received = 0;
		socket.on("connect", () => {
			socket.write(`call ${kind} 0\n`);
			if (handshake !== undefined) socket.write(handshake);
			else socket.write(request);
		});
		socket.on("data", (chunk: Buffer) => {
			if (started) {
				received += chunk.length;
				return;
			}
			buffered = Buffer.concat([buffered, chunk]);
			const end = buffered.indexOf("\r\n\r\n");
			if (end === -1) return;
			started = true;
			received += buffered.length - end - 4;
			socket.write(request);
		});
		socket.on("error", reject);
		socket.on("close", () => resolve({ sent: Buffer.byteLength(request), received }));
	});
}

describe("the audit's bytes", () => {
	it("count heads and bodies alike for a plain http:// request and a CONNECT tunnel", async () => {
		const body = "a".repeat(1234);
		const plain = `POST http://bytes.test:${port}/plain HTTP/1.1\r\nHost: bytes.test:${port}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`;
		const direct = plain.replace(`http://bytes.test:${port}/plain`, "/tunnel");
		const viaHttp = await exchange("http", undefined, plain);
		const viaConnect = await exchange(
			"http",
			`CONNECT bytes.test:${port} HTTP/1.1\r\nHost: bytes.test:${port}\r\n\r\n`,
			direct,
		);
		await expect.poll(() => closed.length, { timeout: 30_000 }).toBe(2);
		const [http, tunnel] = [
			closed.find((record) => record.via === "http"),
			closed.find((record) => record.via === "connect"),
		];
		expect(viaHttp.received).toBeGreaterThan(3000);
		expect(http).toMatchObject({ bytesSent: viaHttp.sent, bytesReceived: viaHttp.received });
		expect(tunnel).toMatchObject({ bytesSent: viaConnect.sent, bytesReceived: viaConnect.received });
	});
});
