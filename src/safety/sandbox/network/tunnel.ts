import { connect, type Socket } from "node:net";
import type { NetworkAudit, NetworkConnectionRecord, ProxyVia } from "./audit.js";
import { type Allowed, type DecideOptions, decide, type Refused } from "./decide.js";
import type { HandoffControls } from "./handoff.js";
import type { HandoffTrailer } from "./launcher-program.js";
import type { Destination } from "./policy.js";
import { type ProxySecrets, placeholderScanner } from "./secrets/index.js";

/** What each proxied connection is judged and recorded with. */
export interface ProxyContext {
	decide: DecideOptions;
	audit: NetworkAudit;
	/** The sandboxed call the connection came from, when known. */
	call: string | undefined;
	/** The session's secrets, when `sandbox.network.secrets` keeps some out. Default: none. */
	secrets?: ProxySecrets;
	/**
	 * The launchers' control connections and the connection's number, when the launcher named one:
	 * an allowed tunnel is then handed to the launcher (handoff.ts). Default: the proxy copies.
	 */
	handoff?: { controls: HandoffControls; id: string | undefined };
	/**
	 * How long an HTTP connection may take to send a whole request head (after a CONNECT to a host
	 * a secret belongs to: its TLS handshake and first request) before it is closed. Default:
	 * `headTimeoutMs`.
	 */
	headTimeoutMs?: number;
}

/** A client that never finishes its request head (or its TLS handshake) holds a socket no longer than this. */
export const headTimeoutMs = 60_000;

const connectTimeoutMs = 15_000;
/** A tunnel with no traffic either way for this long is closed (a wait that never ends holds a socket). */
const idleTimeoutMs = 10 * 60_000;

/** Decides `destination` and records the decision. */
export async function judge(
	context: ProxyContext,
	destination: Destination,
	via: ProxyVia,
): Promise<{ decision: Allowed | Refused; record: NetworkConnectionRecord }> {
	// A placeholder in the name would leave in the resolver's query (DNS): such a name is not resolved.
	const inName = context.secrets?.table.foundIn(destination.host)[0];
	const decision: Allowed | Refused = inName
		? { allowed: false, reason: context.secrets?.table.refusal(inName, destination.host, destination.port) ?? "" }
		: await decide(destination, context.decide);
	const record: NetworkConnectionRecord = {
		time: Date.now(),
		host: destination.host,
		port: destination.port,
		via,
		allowed: decision.allowed,
		bytesSent: 0,
		bytesReceived: 0,
		closed: !decision.allowed,
		...(decision.allowed ? { rule: decision.rule, address: decision.address } : { reason: decision.reason }),
		...(!decision.allowed && decision.rule ? { rule: decision.rule } : {}),
	};
	context.audit.decided(record, context.call);
	return { decision, record };
}

/** Connects to an allowed address; rejects with a message naming the host after the timeout or an error. */
export function connectUpstream(address: string, port: number, host: string): Promise<Socket> {
	return new Promise((resolve, reject) => {
		const socket = connect({ host: address, port });
		const fail = (message: string) => {
			socket.destroy();
			reject(new Error(message));
		};
		const timer = setTimeout(() => fail(`connecting to ${host}:${port} (${address}) timed out`), connectTimeoutMs);
		socket.once("connect", () => {
			clearTimeout(timer);
			socket.removeAllListeners("error");
			resolve(socket);
		});
		socket.once("error", (error) => {
			clearTimeout(timer);
			fail(`connecting to ${host}:${port} (${address}) failed: ${error.message}`);
		});
	});
}

/**
 * Copies bytes both ways between the command's socket and the host's (`early`, what the command
 * sent with its handshake, first), with backpressure, counting them into `record`; when either side ends or fails, both are closed and the record is final.
 */
export function splice(
	client: Socket,
	upstream: Socket,
	record: NetworkConnectionRecord,
	context: ProxyContext,
	early: Buffer = Buffer.alloc(0),
): void {
	let done = false;
	const finish = () => {
		if (done) return;
		done = true;
		client.destroy();
		upstream.destroy();
		context.audit.closed(record, context.call);
	};
	client.on("data", (chunk: Buffer) => {
		record.bytesSent += chunk.length;
	});
	upstream.on("data", (chunk: Buffer) => {
		record.bytesReceived += chunk.length;
	});
	const secrets = context.secrets;
	if (secrets) {
		// A placeholder in the clear on its way to a host the proxy does not end TLS for: cut it.
		const scanner = placeholderScanner(secrets.table, (secret) =>
			context.audit.decided(
				{
					...record,
					time: Date.now(),
					allowed: false,
					reason: secrets.table.refusal(secret, record.host, record.port),
					bytesSent: 0,
					bytesReceived: 0,
					closed: true,
				},
				context.call,
			),
		);
		scanner.on("error", finish);
		// What came with the handshake is watched like the rest: it is the first of the command's bytes.
		if (early.length > 0) scanner.write(early);
		client.pipe(scanner).pipe(upstream);
	} else {
		if (early.length > 0) upstream.write(early);
		client.pipe(upstream);
	}
	upstream.pipe(client);
	for (const [socket, other] of [
		[client, upstream],
		[upstream, client],
	] as const) {
		socket.setTimeout(idleTimeoutMs, finish);
		socket.on("error", finish);
		// What one side sent last may still be queued for the other: it goes before the close.
		socket.on("close", () => afterFlush(other, finish));
	}
}

/** Runs `done` once `socket` has passed on what is queued for it (at once when nothing is). */
function afterFlush(socket: Socket, done: () => void): void {
	if (socket.destroyed || socket.writableLength === 0) {
		done();
		return;
	}
	socket.end();
	socket.once("finish", done);
	socket.once("close", done);
}

/** The outcome of `openTunnel`: refused by the policy, allowed but not reachable, or connected. */
export type TunnelOpening =
	| { kind: "refused"; reason: string }
	| { kind: "unreachable"; reason: string }
	| { kind: "open"; upstream: Socket; record: NetworkConnectionRecord }
	| { kind: "handoff"; address: string; destination: Destination; record: NetworkConnectionRecord };

/** Judges `destination` and, when allowed, connects to the address that was checked. */
export async function openTunnel(
	context: ProxyContext,
	destination: Destination,
	via: ProxyVia,
): Promise<TunnelOpening> {
	const { decision, record } = await judge(context, destination, via);
	if (!decision.allowed) return { kind: "refused", reason: decision.reason };
	// With secrets kept out, every tunnel's outgoing bytes are watched for placeholders (splice):
	// those stay here. Otherwise the launcher connects to the address judged here and copies alone.
	if (!context.secrets && context.handoff?.controls.canTake(context.call, context.handoff.id)) {
		return { kind: "handoff", address: decision.address, destination, record };
	}
	try {
		return {
			kind: "open",
			upstream: await connectUpstream(decision.address, destination.port, destination.host),
			record,
		};
	} catch (error) {
		context.audit.closed(record, context.call);
		return { kind: "unreachable", reason: (error as Error).message };
	}
}

/** Splices the two, what the client wrote before the tunnel stood (`early`) first. */
export function startTunnel(
	client: Socket,
	opening: Extract<TunnelOpening, { kind: "open" }>,
	context: ProxyContext,
	early: Buffer,
): void {
	opening.record.bytesSent += early.length;
	splice(client, opening.upstream, opening.record, context, early);
	client.resume();
}

/**
 * Hands an allowed tunnel to the launcher (handoff.ts): it connects to the judged address, sends
 * `reply` to the command (or the failure), then `early` and the rest to the host.
 */
export function handOffTunnel(
	client: Socket,
	opening: Extract<TunnelOpening, { kind: "handoff" }>,
	context: ProxyContext,
	reply: HandoffTrailer["reply"],
	early: Buffer,
): void {
	const handoff = context.handoff;
	if (!handoff || context.call === undefined || handoff.id === undefined) {
		client.destroy();
		return;
	}
	handoff.controls.handOff({
		call: context.call,
		id: handoff.id,
		client,
		record: opening.record,
		trailer: { address: opening.address, port: opening.destination.port, host: opening.destination.host, reply },
		early,
	});
}
