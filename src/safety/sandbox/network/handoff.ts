// The proxy's side of a handoff (the launcher's side and the protocol: launcher-program.ts). The
// proxy has judged an allowed tunnel it need not read; rather than connecting and copying every byte
// a second time (the launcher already copies them once), it gives the launcher the address it
// checked and lets the launcher connect to it. The decision, the rebinding check and the audit
// record stay here; the launcher reports the byte counts when the tunnel closes.
import type { Socket } from "node:net";
import type { NetworkAudit, NetworkConnectionRecord } from "./audit.js";
import type { HandoffTrailer } from "./launcher-program.js";

const maximumControlLine = 200;

/** A tunnel handed to the launcher, awaiting its byte counts. */
interface OpenTunnel {
	record: NetworkConnectionRecord;
	call: string;
}

/** One allowed tunnel to hand over: the connection from the launcher and what the launcher needs. */
export interface HandoffRequest {
	/** The call and connection number the launcher named in the connection's first line. */
	call: string;
	id: string;
	/** The connection from the launcher, read up to the end of the command's handshake. */
	client: Socket;
	record: NetworkConnectionRecord;
	trailer: Omit<HandoffTrailer, "early">;
	/** The command's bytes past its handshake the proxy has read already. */
	early: Buffer;
}

/** The launchers' control connections, one per call, and the tunnels handed to each. */
export class HandoffControls {
	private readonly controls = new Map<string, Socket>();
	private readonly open = new Map<string, OpenTunnel>();

	constructor(private readonly audit: NetworkAudit) {}

	/** Takes `socket` (past its first line) as the control connection of `call`. */
	attach(call: string, socket: Socket): void {
		this.controls.get(call)?.destroy();
		this.controls.set(call, socket);
		let text = "";
		socket.setEncoding("latin1");
		socket.on("data", (data: string) => {
			text += data;
			for (let end = text.indexOf("\n"); end !== -1; end = text.indexOf("\n")) {
				const [verb, id = "", sent = "", received = ""] = text.slice(0, end).split(" ");
				text = text.slice(end + 1);
				if (verb === "B") this.closed(`${call} ${id}`, Number(sent), Number(received));
			}
			if (text.length > maximumControlLine) socket.destroy();
		});
		socket.on("close", () => {
			if (this.controls.get(call) === socket) this.controls.delete(call);
			for (const [key, tunnel] of this.open) if (tunnel.call === call) this.closed(key, 0, 0);
		});
		socket.resume();
	}

	/** True when the launcher of `call` can take a tunnel over (it named the connection and has a control connection). */
	canTake(call: string | undefined, id: string | undefined): boolean {
		if (call === undefined || id === undefined || !/^\d+$/.test(id)) return false;
		const control = this.controls.get(call);
		return control !== undefined && !control.destroyed;
	}

	/**
	 * Hands an allowed tunnel to the launcher: tells it how many bytes written so far were the
	 * command's, reads what it still sends until it half-closes, and answers with the trailer.
	 */
	handOff(request: HandoffRequest): void {
		const control = this.controls.get(request.call);
		if (!control) {
			request.client.destroy();
			this.audit.closed(request.record, request.call);
			return;
		}
		const key = `${request.call} ${request.id}`;
		this.open.set(key, { record: request.record, call: request.call });
		const client = request.client;
		const early = [request.early];
		// The launcher half-closes when it has stopped sending; the trailer goes after that.
		client.allowHalfOpen = true;
		client.setTimeout(0);
		client.on("data", (chunk: Buffer) => early.push(chunk));
		client.once("end", () => {
			const trailer: HandoffTrailer = { ...request.trailer, early: Buffer.concat(early).toString("base64") };
			client.end(`${JSON.stringify(trailer)}\n`);
		});
		control.write(`H ${request.id} ${client.bytesWritten}\n`);
		client.resume();
	}

	/** How many tunnels handed to the launcher of `call` are still open. */
	openTunnels(call: string): number {
		let count = 0;
		for (const tunnel of this.open.values()) if (tunnel.call === call) count += 1;
		return count;
	}

	/** Ends every handed-off tunnel's record (the session closes: the control connections go with it). */
	closeAll(): void {
		for (const control of this.controls.values()) control.destroy();
	}

	private closed(key: string, sent: number, received: number): void {
		const tunnel = this.open.get(key);
		if (!tunnel) return;
		this.open.delete(key);
		tunnel.record.bytesSent = Number.isFinite(sent) ? sent : 0;
		tunnel.record.bytesReceived = Number.isFinite(received) ? received : 0;
		this.audit.closed(tunnel.record, tunnel.call);
	}
}
