import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { rm } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { atProcessEnd } from "../../../workspace/local/index.js";
import { NetworkAudit, type NetworkConnectionListener } from "./audit.js";
import type { DecideOptions } from "./decide.js";
import { HandoffControls } from "./handoff.js";
import { createHttpProxy } from "./http-proxy.js";
import { handOffPlainRequest, refusalResponse } from "./plain-handoff.js";
import type { ProxySecrets } from "./secrets/index.js";
import { serveSocks } from "./socks5.js";
import { handOffTunnel, openTunnel, type ProxyContext, startTunnel } from "./tunnel.js";

/** The proxy of one session: a Unix socket in the sandbox's private state directory. */
export interface NetworkProxy {
	/** Where the launcher of each sandboxed call connects (never reachable inside: no `socket(AF_UNIX)` there). */
	socketPath: string;
	/** The audit of every connection, and each call's refusals. */
	audit: NetworkAudit;
	/** Stops accepting and ends every open connection. Never throws. */
	close(): Promise<void>;
}

/**
 * Connections one call may have open through the proxy at once: its sockets to the proxy (each
 * tunnel, plain request or handshake under way) and the tunnels handed to its launcher. Package
 * managers open a few dozen; without a bound, a command opening thousands would take the
 * descriptors of toolbelt's own process (every tool shares them) and lean on the hosts it reaches.
 */
export const maximumConnectionsPerCall = 256;

const preambleTimeoutMs = 10_000;
const maximumPreambleBytes = 200;

/** Reads the launcher's one line, `<call> <http|socks|forward|control> <port> [<connection>]`; the rest stays in the socket. */
function readPreamble(socket: Socket): Promise<string[] | undefined> {
	return new Promise((resolve) => {
		let data = Buffer.alloc(0);
		const timer = setTimeout(() => done(undefined), preambleTimeoutMs);
		const done = (words: string[] | undefined) => {
			clearTimeout(timer);
			socket.off("data", onData);
			socket.pause();
			resolve(words);
		};
		const onData = (chunk: Buffer) => {
			data = Buffer.concat([data, chunk]);
			const newline = data.indexOf(10);
			if (newline === -1) {
				if (data.length > maximumPreambleBytes) done(undefined);
				return;
			}
			// Stop listening before the rest goes back: unshift emits it at once on a flowing socket.
			done(data.subarray(0, newline).toString("latin1").split(" "));
			const rest = data.subarray(newline + 1);
			if (rest.length > 0) socket.unshift(rest);
		};
		socket.on("data", onData);
	});
}

const busyReason = `the command already has ${maximumConnectionsPerCall} connections open through the proxy, the most one command may have at once, so this one was not made; open fewer at a time (a tool's parallel downloads, a test's workers), or close connections it no longer needs`;

/** Refuses a connection over its call's bound: in the protocol's own words where it has some, and in the audit. */
function refuseBusy(socket: Socket, kind: string | undefined, context: ProxyContext): void {
	const via = kind === "socks" ? "socks" : kind === "forward" ? "forward" : "http";
	context.audit.decided(
		{
			time: Date.now(),
			host: "*",
			port: 0,
			via,
			allowed: false,
			reason: busyReason,
			bytesSent: 0,
			bytesReceived: 0,
			closed: true,
		},
		context.call,
	);
	// SOCKS5 has no words for it before its greeting: "no acceptable method" ends it.
	const reply =
		kind === "http"
			? refusalResponse(busyReason, "503 Service Unavailable")
			: kind === "socks"
				? Buffer.from([5, 0xff])
				: "";
	socket.end(reply);
	// What the command sends meanwhile is dropped, and the socket goes once it is closed.
	socket.resume();
	socket.setTimeout(preambleTimeoutMs, () => socket.destroy());
}

async function serveForward(socket: Socket, context: ProxyContext, port: number): Promise<void> {
	const opening = await openTunnel(context, { host: "localhost", port }, "forward");
	if (opening.kind === "handoff") {
		handOffTunnel(socket, opening, context, "none", Buffer.alloc(0));
		return;
	}
	if (opening.kind !== "open") {
		socket.destroy();
		return;
	}
	startTunnel(socket, opening, context, Buffer.alloc(0));
}

/**
 * Starts the session's proxy on a Unix socket in `stateDir` (a private directory of this user).
 * Each connection starts with the launcher's line naming the call and the kind (HTTP proxy, SOCKS5,
 * or a listed loopback port); every destination is judged by `decide` and recorded in the audit.
 */
export async function startNetworkProxy(options: {
	stateDir: string;
	decide: DecideOptions;
	onConnection?: NetworkConnectionListener;
	/** The session's secrets, to mask on the way out. Default: none. */
	secrets?: ProxySecrets;
	/** How long a client may take to send a request head (see `ProxyContext`). Default: `headTimeoutMs`. */
	headTimeoutMs?: number;
}): Promise<NetworkProxy> {
	const audit = new NetworkAudit(options.onConnection);
	const controls = new HandoffControls(audit);
	const contexts = new WeakMap<Socket, ProxyContext>();
	const httpProxy = createHttpProxy(
		(socket) =>
			contexts.get(socket) ?? {
				decide: options.decide,
				audit,
				call: undefined,
				secrets: options.secrets,
				headTimeoutMs: options.headTimeoutMs,
			},
	);
	const sockets = new Set<Socket>();
	const perCall = new Map<string, number>();
	/** Counts `socket` for `call` until it closes; false when the call is at its bound. */
	const admit = (socket: Socket, call: string): boolean => {
		const open = perCall.get(call) ?? 0;
		if (open + controls.openTunnels(call) >= maximumConnectionsPerCall) return false;
		perCall.set(call, open + 1);
		socket.once("close", () => {
			const left = (perCall.get(call) ?? 1) - 1;
			if (left > 0) perCall.set(call, left);
			else perCall.delete(call);
		});
		return true;
	};
	const serve = async (socket: Socket) => {
		const words = await readPreamble(socket);
		const [call, kind, port, id] = words ?? [];
		const context: ProxyContext = {
			decide: options.decide,
			audit,
			call,
			secrets: options.secrets,
			handoff: { controls, id },
			headTimeoutMs: options.headTimeoutMs,
		};
		contexts.set(socket, context);
		if (kind === "control" && call !== undefined) controls.attach(call, socket);
		else if (call === undefined) socket.destroy();
		else if (!admit(socket, call)) refuseBusy(socket, kind, context);
		else if (kind === "http") {
			// Without secrets nothing of a plain request needs the proxy past its head: the launcher can take it.
			const handedOff = !options.secrets && controls.canTake(call, id) && (await handOffPlainRequest(socket, context));
			if (!handedOff) httpProxy.emit("connection", socket);
		} else if (kind === "socks") await serveSocks(socket, context, Buffer.alloc(0));
		else if (kind === "forward" && /^\d+$/.test(port ?? "")) await serveForward(socket, context, Number(port));
		else socket.destroy();
		socket.resume();
	};
	const server: Server = createServer((socket) => {
		sockets.add(socket);
		socket.on("close", () => sockets.delete(socket));
		socket.on("error", () => socket.destroy());
		void serve(socket).catch(() => socket.destroy());
	});
	const socketPath = join(options.stateDir, `proxy-${process.pid}-${randomBytes(6).toString("hex")}.sock`);
	await new Promise<void>((resolve, reject) => {
		server.once("error", reject);
		server.listen(socketPath, () => resolve());
	});
	// The session's commands need it while it runs; it must not keep the process alive on its own,
	// and its socket file must not outlive the process (a CLI run ends without closing it).
	server.unref();
	const removeSocket = () => rmSync(socketPath, { force: true });
	const cancelAtEnd = atProcessEnd(removeSocket);
	return {
		socketPath,
		audit,
		close: async () => {
			cancelAtEnd();
			controls.closeAll();
			for (const socket of sockets) socket.destroy();
			await new Promise<void>((resolve) => server.close(() => resolve()));
			await rm(socketPath, { force: true }).catch(() => {});
		},
	};
}
