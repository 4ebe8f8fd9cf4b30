// The launcher: a small Node program (run as `node -e`, so one self-contained function turned into
// source text with `String()`) that runs outside the sandbox in place of the shell that starts bwrap.
// It starts bwrap with the seccomp program on its descriptor and a Node IPC channel, and receives
// each connection the bridge accepted inside (the descriptor itself).
//
// Every connection first goes to the proxy's Unix socket, behind a line naming the call, the kind
// and the connection's number: the proxy speaks the handshake (HTTP, SOCKS5) and judges the
// destination. For an allowed tunnel the proxy need not read (no secret to mask or watch for), it
// hands the tunnel back (a handoff): over the launcher's control connection it says how many of
// the bytes it wrote were for the command, the launcher stops sending and half-closes, and the proxy
// answers with one JSON line: the address it checked, the port, the kind of reply, and the bytes the
// command sent that the proxy had already read. The launcher connects to exactly that address and
// copies the bytes itself, so one process copies them instead of two; when the tunnel closes it
// reports the byte counts on the control connection for the audit. When the control connection
// closes (the proxy ended with its session), every handed-off tunnel is closed too.
import type * as ChildProcessModule from "node:child_process";
import type * as FsModule from "node:fs";
import type * as NetModule from "node:net";

/** What the launcher connects to. */
export interface LauncherConfig {
	/** The proxy's Unix socket. */
	socket: string;
	/** The call's id, named in each connection's first line. */
	call: string;
	/** The descriptor bwrap reads the seccomp program from. */
	seccompFd: number;
}

/** The JSON line the proxy ends a handed-off connection with (see proxy's handoff.ts). */
export interface HandoffTrailer {
	/** The address the proxy judged, connected to as it is (never resolved again). */
	address: string;
	port: number;
	/** The host as the command named it, for the message of a failed connection. */
	host: string;
	/**
	 * The answer the command waits for: CONNECT's status line, SOCKS5's reply, none (a forwarded
	 * port, or a plain request: the host's own answer; a 502 when the host cannot be reached).
	 */
	reply: "connect" | "socks" | "http" | "none";
	/** Base64 of the bytes to send the host first: what the command sent that the proxy had read. */
	early: string;
	/** The command's bytes `early` stands for, when not its length (a plain request's head as sent). */
	sent?: number;
}

/** argv: config JSON, seccomp file, bwrap, its arguments (the bridge and the command included). */
function launcherMain(childProcess: typeof ChildProcessModule, net: typeof NetModule, fs: typeof FsModule): void {
	const [configText = "{}", filterFile = "", bwrap = "", ...args] = process.argv.slice(1);
	const config = JSON.parse(configText) as LauncherConfig;
	const connectTimeoutMs = 15_000;
	const idleTimeoutMs = 10 * 60_000;
	// Reads from the host go into 1 MiB slabs, one set per host socket (each has one read
	// outstanding): fewer, larger reads than the default 64 KiB ones. A read takes the current slab's
	// unused tail; a full slab is used again once every write of its chunks has completed. Reusing
	// them matters: a fresh 1 MiB allocation is fresh memory from the system, and faulting in 100 MB
	// of new pages made a new launcher's first download several times slower than the next ones.
	const slabBytes = 2 ** 20;
	const slabReader = () => {
		const spare: Buffer[] = [];
		const pending = new Map<Buffer, number>();
		let slab: Buffer = Buffer.allocUnsafe(slabBytes);
		let used = 0;
		pending.set(slab, 0);
		const retire = (old: Buffer) => {
			if (old === slab || pending.get(old) !== 0) return;
			pending.delete(old);
			if (spare.length < 4) spare.push(old);
		};
		return {
			next: () => {
				if (slabBytes - used < 65_536) {
					const old = slab;
					slab = spare.pop() ?? Buffer.allocUnsafe(slabBytes);
					used = 0;
					pending.set(slab, 0);
					retire(old);
				}
				return slab.subarray(used);
			},
			/** Marks `bytes` of the current slab as taken by a write; returns the write's completion. */
			took: (bytes: number) => {
				const current = slab;
				used += bytes;
				pending.set(current, (pending.get(current) ?? 0) + 1);
				return () => {
					pending.set(current, (pending.get(current) ?? 1) - 1);
					retire(current);
				};
			},
		};
	};

	const handoffs = new Map<string, (count: number) => void>();
	const tunnels = new Set<NetModule.Socket>();
	let control: NetModule.Socket | undefined;
	const openControl = () => {
		if (control) return;
		const socket = net.connect(config.socket, () => socket.write(`${config.call} control 0\n`));
		control = socket;
		let text = "";
		socket.setEncoding("latin1");
		socket.on("data", (data: string) => {
			text += data;
			for (let end = text.indexOf("\n"); end !== -1; end = text.indexOf("\n")) {
				const [verb, id = "", count = ""] = text.slice(0, end).split(" ");
				text = text.slice(end + 1);
				if (verb === "H") handoffs.get(id)?.(Number(count));
			}
		});
		socket.on("error", () => socket.destroy());
		socket.on("close", () => {
			for (const tunnel of tunnels) tunnel.destroy();
		});
	};
	const report = (id: string, sent: number, received: number) => {
		if (control && !control.destroyed) control.write(`B ${id} ${sent} ${received}\n`);
	};

	/** Copies `from` into `to`, pausing `from` while `to` is full; counts through `count`. */
	const forward = (from: NetModule.Socket, to: NetModule.Socket, count: (bytes: number) => void) => {
		let stopped = false;
		const onData = (chunk: Buffer) => {
			count(chunk.length);
			if (!to.write(chunk)) {
				from.pause();
				to.once("drain", () => {
					if (!stopped) from.resume();
				});
			}
		};
		from.on("data", onData);
		return () => {
			stopped = true;
			from.off("data", onData);
		};
	};

	/** Runs `done` once `socket` has passed on what is queued for it (at once when nothing is). */
	const afterFlush = (socket: NetModule.Socket, done: () => void) => {
		if (socket.destroyed || socket.writableLength === 0) return done();
		socket.end();
		socket.once("finish", done);
		socket.once("close", done);
	};

	const failure = (reply: HandoffTrailer["reply"], reason: string): Buffer | undefined => {
		if (reply === "socks") return Buffer.from([5, 4, 0, 1, 0, 0, 0, 0, 0, 0]);
		if (reply !== "connect" && reply !== "http") return undefined;
		const body = `toolbelt sandbox: ${reason}\n`;
		return Buffer.from(
			`HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
		);
	};
	const success = (reply: HandoffTrailer["reply"]): Buffer => {
		if (reply === "socks") return Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0]);
		return Buffer.from(reply === "connect" ? "HTTP/1.1 200 Connection Established\r\n\r\n" : "");
	};

	/** Connects the command's socket to the host the proxy checked, and copies both ways. */
	const direct = (id: string, client: NetModule.Socket, trailer: HandoffTrailer) => {
		const given = Buffer.from(trailer.early, "base64");
		// A plain request is its judged head alone: what the command wrote after it (a second,
		// pipelined request naming another site) is not the host's to read.
		const headEnd = trailer.reply === "http" ? given.indexOf("\r\n\r\n") : -1;
		const early = headEnd === -1 ? given : given.subarray(0, headEnd + 4);
		let sent = trailer.sent ?? early.length;
		let received = 0;
		let connected = false;
		let reported = false;
		const slab = slabReader();
		const host = net.connect({
			host: trailer.address,
			port: trailer.port,
			onread: {
				buffer: slab.next,
				callback: (bytes: number, buffer: Uint8Array) => {
					const written = slab.took(bytes);
					received += bytes;
					if (!client.write(buffer.subarray(0, bytes), written)) {
						host.pause();
						client.once("drain", () => host.resume());
					}
					return true;
				},
			},
		});
		tunnels.add(host);
		const finish = () => {
			client.destroy();
			host.destroy();
			tunnels.delete(host);
			if (reported) return;
			reported = true;
			report(id, sent, received);
		};
		const where = `${trailer.host}:${trailer.port} (${trailer.address})`;
		const timer = setTimeout(() => host.destroy(new Error(`connecting to ${where} timed out`)), connectTimeoutMs);
		client.on("error", finish);
		client.on("close", finish);
		// The host's last bytes may still be queued for the command: they go before the close.
		host.on("close", () => afterFlush(client, finish));
		host.on("error", (error: Error) => {
			clearTimeout(timer);
			if (connected) return finish();
			const reason = error.message.startsWith("connecting to ")
				? error.message
				: `connecting to ${where} failed: ${error.message}`;
			const answer = failure(trailer.reply, reason);
			sent = 0;
			if (answer) client.end(answer, finish);
			else finish();
		});
		host.once("connect", () => {
			connected = true;
			clearTimeout(timer);
			client.write(success(trailer.reply));
			if (early.length > 0) host.write(early);
			if (trailer.reply === "http") client.on("data", () => {});
			else
				forward(client, host, (bytes) => {
					sent += bytes;
				});
			client.on("end", () => host.end());
			host.on("end", () => client.end());
			for (const socket of [client, host]) socket.setTimeout(idleTimeoutMs, finish);
			client.resume();
		});
	};

	let connections = 0;
	const carry = (message: { kind?: string; port?: number }, client: NetModule.Socket) => {
		const id = String(++connections);
		openControl();
		const proxy = net.connect(config.socket, () => client.resume());
		// Written before anything of the command's: a socket still connecting sends its writes in order.
		proxy.write(`${config.call} ${message.kind} ${message.port ?? 0} ${id}\n`);
		let handedOff: number | undefined;
		let passed = 0;
		const trailer: Buffer[] = [];
		const stopSending = forward(client, proxy, () => {});
		proxy.on("data", (data: Buffer) => {
			let chunk = data;
			if (handedOff !== undefined) {
				const part = chunk.subarray(0, Math.max(0, handedOff - passed));
				chunk = chunk.subarray(part.length);
				if (part.length > 0) client.write(part);
				passed += part.length;
				if (chunk.length > 0) trailer.push(chunk);
				return;
			}
			passed += chunk.length;
			if (!client.write(chunk)) {
				proxy.pause();
				client.once("drain", () => proxy.resume());
			}
		});
		handoffs.set(id, (count) => {
			handoffs.delete(id);
			handedOff = count;
			stopSending();
			client.pause();
			proxy.end();
		});
		const close = () => {
			handoffs.delete(id);
			client.destroy();
			proxy.destroy();
		};
		proxy.on("end", () => {
			if (handedOff === undefined) {
				client.end();
				return;
			}
			client.removeListener("close", close);
			client.removeListener("error", close);
			proxy.removeListener("close", proxyClosed);
			proxy.destroy();
			let parsed: HandoffTrailer | undefined;
			try {
				parsed = JSON.parse(Buffer.concat(trailer).toString("utf8")) as HandoffTrailer;
			} catch {
				parsed = undefined;
			}
			if (!parsed || passed !== handedOff) {
				report(id, 0, 0);
				client.destroy();
				return;
			}
			direct(id, client, parsed);
		});
		const proxyClosed = () => afterFlush(client, close);
		client.on("error", close);
		client.on("close", close);
		proxy.on("error", close);
		proxy.on("close", proxyClosed);
	};

	const filter = fs.openSync(filterFile, "r");
	const stdio: (string | number)[] = ["inherit", "inherit", "inherit"];
	while (stdio.length < config.seccompFd) stdio.push("ignore");
	stdio.push(filter, "ipc");
	const child = childProcess.spawn(bwrap, args, { stdio: stdio as ChildProcessModule.StdioOptions });
	fs.closeSync(filter);
	child.on("message", (message: { kind?: string; port?: number }, handle?: NetModule.Socket) => {
		if (handle) carry(message, handle);
	});
	child.on("error", (error) => {
		process.stderr.write(`toolbelt sandbox: cannot start ${bwrap}: ${error.message}\n`);
		process.exit(126);
	});
	child.on("exit", (code, signal) => {
		if (signal) process.kill(process.pid, signal);
		process.exit(code ?? 1);
	});
}

const modules = 'require("node:child_process"), require("node:net"), require("node:fs")';
// A transpiler that keeps function names (tsx, vitest) calls its `__name` helper inside the bodies.
const prelude = "var __name = (target) => target;";

/** The launcher as a `node -e` program. */
export const launcherSource = `${prelude}(${String(launcherMain)})(${modules})`;
