// The launcher takes allowed tunnels and plain requests over from the proxy (one process copies the
// bytes): every byte arrives intact and in order whichever way the command came (plain http://,
// CONNECT, SOCKS5), the audit gets the final byte counts, what needs the proxy (a request body, a
// refusal) still goes through it, and a handed-off tunnel ends when the proxy ends. The launcher
// and the bridge run here without bwrap (the bridge on free ports of this host), so the test is
// about the handoff protocol; the sandboxed path is covered by test/security/sandbox-network*.
import { type ChildProcess, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { connect, createServer as createTcpServer, type Socket, type Server as TcpServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NetworkConnectionRecord } from "../../../src/safety/sandbox/network/audit.js";
import { bridgeSource } from "../../../src/safety/sandbox/network/bridge-programs.js";
import { launcherSource } from "../../../src/safety/sandbox/network/launcher-program.js";
import { parseNetworkPolicy } from "../../../src/safety/sandbox/network/policy.js";
import { type NetworkProxy, startNetworkProxy } from "../../../src/safety/sandbox/network/proxy-server.js";

const payload = randomBytes(6 * 2 ** 20 + 12_345);
const payloadHash = createHash("sha256").update(payload).digest("hex");
let server: Server;
let holder: TcpServer;
const held: Socket[] = [];
let port = 0;
let holdPort = 0;
let proxy: NetworkProxy;
let stateDir = "";
const closed: NetworkConnectionRecord[] = [];
/** Between the launcher and the proxy's socket: counts what the proxy sends the launcher. */
let relay: TcpServer;
let relayPath = "";
let fromProxy = 0;

/** The command: downloads the payload three ways, posts a body, asks for a denied host; prints JSON. */
const commandSource = (httpPort: number, socksPort: number, serverPort: number) => `
const http = require("node:http"), net = require("node:net"), crypto = require("node:crypto");
const digest = (chunks) => { const all = Buffer.concat(chunks); return { bytes: all.length, sha: crypto.createHash("sha256").update(all).digest("hex") }; };
const plain = (path, method = "GET", body) => new Promise((resolve, reject) => {
	const request = http.request({ host: "127.0.0.1", port: ${httpPort}, path: "http://data.test:${serverPort}" + path, method, headers: body ? { "content-length": body.length } : {} }, (response) => {
		const chunks = []; response.on("data", (c) => chunks.push(c)); response.on("end", () => resolve({ status: response.statusCode, ...digest(chunks), text: Buffer.concat(chunks).subarray(0, 200).toString() }));
	});
	request.on("error", reject); request.end(body);
});
const rawBody = (socket, first) => new Promise((resolve) => { const chunks = first ? [first] : []; socket.on("data", (c) => chunks.push(c)); socket.on("close", () => resolve(chunks)); });
const connect = () => new Promise((resolve, reject) => {
	const socket = net.connect(${httpPort}, "127.0.0.1", () => socket.write("CONNECT data.test:${serverPort} HTTP/1.1\\r\\nHost: data.test:${serverPort}\\r\\n\\r\\nGET /data HTTP/1.1\\r\\nHost: data.test\\r\\nConnection: close\\r\\n\\r\\n"));
	rawBody(socket).then((chunks) => { const all = Buffer.concat(chunks); const first = all.indexOf("\\r\\n\\r\\n"); const second = all.indexOf("\\r\\n\\r\\n", first + 4); resolve({ status: all.subarray(0, 12).toString(), ...digest([all.subarray(second + 4)]) }); });
	socket.on("error", reject);
});
const socks = () => new Promise((resolve, reject) => {
	const socket = net.connect(${socksPort}, "127.0.0.1", () => {
		socket.write(Buffer.from([5, 1, 0]));
		const name = Buffer.from("data.test");
		socket.write(Buffer.concat([Buffer.from([5, 1, 0, 3, name.length]), name, Buffer.from([${serverPort} >> 8, ${serverPort} & 255])]));
		socket.write("GET /data HTTP/1.1\\r\\nHost: data.test\\r\\nConnection: close\\r\\n\\r\\n");
	});
	rawBody(socket).then((chunks) => { const all = Buffer.concat(chunks); const head = all.indexOf("\\r\\n\\r\\n"); resolve({ reply: [...all.subarray(0, 12)].join(","), ...digest([all.subarray(head + 4)]) }); });
	socket.on("error", reject);
});
const denied = () => new Promise((resolve, reject) => {
	const request = http.request({ host: "127.0.0.1", port: ${httpPort}, path: "http://denied.test/" }, (response) => {
		let text = ""; response.on("data", (c) => { text += c; }); response.on("end", () => resolve({ status: response.statusCode, text }));
	});
	request.on("error", reject); request.end();
});
(async () => {
	const results = { plain: await plain("/data"), connect: await connect(), socks: await socks(), post: await plain("/echo", "POST", Buffer.from("hello body")), denied: await denied() };
	process.stdout.write(JSON.stringify(results));
})().catch((error) => { process.stderr.write(String(error)); process.exit(1); });
`;

async function freePort(): Promise<number> {
	const probe = createTcpServer();
	await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
	const free = (probe.address() as { port: number }).port;
	await new Promise<void>((resolve) => probe.close(() => resolve()));
	return free;
}

/** Runs `command` (node -e source) behind the bridge and the launcher of `call`: its exit (with its stdout), and its stdout so far. */
function runBehindLauncher(
	call: string,
	source: string,
	ports: { http: number; socks: number },
): { done: Promise<string>; output: () => string } {
	const bridge = { ...ports, forwards: [], connectHelper: { path: join(stateDir, "connect.cjs"), source: "" } };
	const child: ChildProcess = spawn(
		process.execPath,
		[
			"-e",
			launcherSource,
			JSON.stringify({ socket: relayPath, call, seccompFd: 3 }),
			"/dev/null",
			process.execPath,
			"-e",
			bridgeSource,
			JSON.stringify(bridge),
			process.execPath,
			"-e",
			source,
		],
		{ stdio: ["ignore", "pipe", "pipe"] },
	);
	let out = "";
	let errors = "";
	child.stdout?.on("data", (data: Buffer) => {
		out += data.toString();
	});
	child.stderr?.on("data", (data: Buffer) => {
		errors += data.toString();
	});
	const done = new Promise<string>((resolve, reject) => {
		child.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}: ${errors}`))));
	});
	return { done, output: () => out };
}

beforeAll(async () => {
	server = createServer((request, response) => {
		if (request.url === "/echo") {
			const chunks: Buffer[] = [];
			request.on("data", (chunk: Buffer) => chunks.push(chunk));
			request.on("end", () => response.end(`got ${Buffer.concat(chunks).toString()}`));
			return;
		}
		request.resume();
		response.writeHead(200, { "content-length": payload.length });
		response.end(payload);
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	port = (server.address() as { port: number }).port;
	holder = createTcpServer((socket) => {
		held.push(socket);
		socket.write("held\n");
	});
	await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
	holdPort = (holder.address() as { port: number }).port;
	stateDir = await mkdtemp(join(tmpdir(), "toolbelt-handoff-"));
	proxy = await startNetworkProxy({
		stateDir,
		decide: {
			policy: parseNetworkPolicy(["data.test", "hold.test", `127.0.0.1:${port}`, `127.0.0.1:${holdPort}`], []),
			hosts: { "data.test": "127.0.0.1", "hold.test": "127.0.0.1" },
		},
		onConnection: (record) => {
			if (record.closed && record.allowed) closed.push({ ...record });
		},
	});
	relayPath = join(stateDir, "relay.sock");
	// Half-open both ways: the launcher half-closes when it hands a connection back (launcher-program.ts).
	relay = createTcpServer({ allowHalfOpen: true }, (launcher) => {
		const toProxy = connect({ path: proxy.socketPath, allowHalfOpen: true });
		toProxy.on("data", (chunk: Buffer) => {
			fromProxy += chunk.length;
		});
		launcher.pipe(toProxy);
		toProxy.pipe(launcher);
		launcher.on("error", () => toProxy.destroy());
		toProxy.on("error", () => launcher.destroy());
	});
	await new Promise<void>((resolve) => relay.listen(relayPath, resolve));
});

afterAll(async () => {
	await proxy?.close();
	relay?.close();
	server?.close();
	for (const socket of held) socket.destroy();
	holder?.close();
	await rm(stateDir, { recursive: true, force: true });
});

describe("the launcher takes allowed connections over from the proxy", () => {
	it("delivers every byte intact by plain http://, CONNECT and SOCKS5, counts them, and leaves bodies and refusals to the proxy", async () => {
		proxy.audit.begin("call-a");
		const ports = { http: await freePort(), socks: await freePort() };
		const results = JSON.parse(
			await runBehindLauncher("call-a", commandSource(ports.http, ports.socks, port), ports).done,
		);
		expect(results.plain).toMatchObject({ status: 200, bytes: payload.length, sha: payloadHash });
		expect(results.connect).toMatchObject({ status: "HTTP/1.1 200", bytes: payload.length, sha: payloadHash });
		expect(results.socks).toMatchObject({ reply: "5,0,5,0,0,1,0,0,0,0,0,0", bytes: payload.length, sha: payloadHash });
		expect(results.post).toMatchObject({ status: 200, text: "got hello body" });
		expect(results.denied.status).toBe(403);
		expect(results.denied.text).toContain("denied.test");
		// Three downloads of the payload came through the launcher, none of them through the proxy.
		expect(fromProxy).toBeLessThan(64 * 1024);
		const records = proxy.audit.takeConnections("call-a");
		const downloads = records.filter((record) => record.allowed && record.host === "data.test");
		expect(downloads.map((record) => record.via).sort()).toEqual(["connect", "http", "http", "socks"]);
		// The launcher's counts reach the audit once each tunnel has closed: the payload and its
		// response head back, the request (a plain request's head as the command sent it) out.
		await expect.poll(() => closed.filter((record) => record.host === "data.test").length, { timeout: 20_000 }).toBe(4);
		const big = closed.filter((record) => record.host === "data.test" && record.bytesReceived > payload.length);
		expect(big.map((record) => record.via).sort()).toEqual(["connect", "http", "socks"]);
		for (const record of big) {
			expect(record.bytesReceived).toBeLessThan(payload.length + 400);
			expect(record.bytesSent).toBeGreaterThan(40);
			expect(record.bytesSent).toBeLessThan(200);
		}
	}, 60_000);

	it("ends a handed-off tunnel when the proxy ends", async () => {
		const ports = { http: await freePort(), socks: await freePort() };
		const source = `
const net = require("node:net");
const socket = net.connect(${ports.http}, "127.0.0.1", () => socket.write("CONNECT hold.test:${holdPort} HTTP/1.1\\r\\nHost: hold.test\\r\\n\\r\\n"));
let text = "";
let open = false;
socket.on("data", (data) => { text += data; if (!open && text.includes("held")) { open = true; process.stdout.write("open\\n"); } });
socket.on("close", () => { process.stdout.write("closed\\n"); });
`;
		proxy.audit.begin("call-b");
		const run = runBehindLauncher("call-b", source, ports);
		// The command has the host's first line: the tunnel stands, in the launcher's hands.
		await expect.poll(run.output, { timeout: 20_000 }).toBe("open\n");
		await proxy.close();
		expect(await run.done).toBe("open\nclosed\n");
	}, 60_000);
});
