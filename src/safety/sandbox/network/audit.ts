/** How a sandboxed command reached the proxy. */
export type ProxyVia = "http" | "connect" | "socks" | "forward";

/** One connection the proxy allowed or refused: the audit record. */
export interface NetworkConnectionRecord {
	/** When it was decided (ms since the epoch). */
	time: number;
	/** The host as the command named it, and the port. */
	host: string;
	port: number;
	/** How it came: a plain HTTP request, CONNECT, SOCKS5, or a listed loopback port. */
	via: ProxyVia;
	allowed: boolean;
	/** The allow or deny entry that decided, as written; none when no entry matched. */
	rule?: string;
	/** For a refusal: why, and what would allow it (the sentence the model reads). */
	reason?: string;
	/** The address connected to (allowed connections). */
	address?: string;
	/** Bytes from the command to the host, and back; final once `closed` is true. */
	bytesSent: number;
	bytesReceived: number;
	/** True once the connection has ended (refused ones at once). */
	closed: boolean;
}

/**
 * Receives every connection record twice at most: when it is decided and when it closes (the
 * same object, with its final byte counts). Contract: must not throw; it runs on the proxy's path.
 */
export type NetworkConnectionListener = (record: NetworkConnectionRecord, call: string | undefined) => void;

const refusalsKeptPerCall = 20;
/** Connections kept per call for its result's details (a command opening thousands keeps the first ones). */
const connectionsKeptPerCall = 200;

/**
 * The records of the proxy: passed to the listener, and the refusals of each running call kept
 * (at most 20 per call) so that its result can tell the model what was refused and how to allow it.
 */
export class NetworkAudit {
	private readonly refusals = new Map<string, NetworkConnectionRecord[]>();
	private readonly connections = new Map<string, NetworkConnectionRecord[]>();

	constructor(private readonly listener?: NetworkConnectionListener) {}

	/** Starts collecting the refusals of `call`. */
	begin(call: string): void {
		this.refusals.set(call, []);
		this.connections.set(call, []);
	}

	/**
	 * Stops collecting the connections of `call` and returns them (allowed and refused, byte counts
	 * as they are now): the audit of the call, for its result's details, the session record and hooks.
	 */
	takeConnections(call: string): NetworkConnectionRecord[] {
		const records = this.connections.get(call) ?? [];
		this.connections.delete(call);
		return records.map((record) => ({ ...record }));
	}

	/** Stops collecting for `call` and returns one notice per refused destination. */
	end(call: string): string[] {
		const refused = this.refusals.get(call) ?? [];
		this.refusals.delete(call);
		const seen = new Set<string>();
		const notices: string[] = [];
		for (const record of refused) {
			const key = `${record.host}:${record.port}`;
			if (seen.has(key)) continue;
			seen.add(key);
			notices.push(`The sandbox's network policy refused a connection: ${record.reason ?? key}.`);
		}
		return notices;
	}

	/** Records a decision (and, for a refusal, that it closed). */
	decided(record: NetworkConnectionRecord, call: string | undefined): void {
		if (call !== undefined) {
			const list = this.connections.get(call);
			if (list && list.length < connectionsKeptPerCall) list.push(record);
		}
		if (!record.allowed && call !== undefined) {
			const list = this.refusals.get(call);
			if (list && list.length < refusalsKeptPerCall) list.push(record);
		}
		this.notify(record, call);
	}

	/** Records that an allowed connection closed, with its byte counts. */
	closed(record: NetworkConnectionRecord, call: string | undefined): void {
		record.closed = true;
		this.notify(record, call);
	}

	private notify(record: NetworkConnectionRecord, call: string | undefined): void {
		try {
			this.listener?.(record, call);
		} catch {
			// A listener's failure must not cut a connection.
		}
	}
}
