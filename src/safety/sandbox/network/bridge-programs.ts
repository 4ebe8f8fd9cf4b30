// The small Node programs inside the sandbox that carry a sandboxed command's connections out. They
// run as `node -e`, so each is one self-contained function (no outside names; modules are passed
// in), turned into source text with `String()`. Their counterpart outside, the launcher, is in
// launcher-program.ts.
//
// bridge (inside, in the sandbox's own network namespace): listens on 127.0.0.1 for the proxy
// ports and the listed loopback ports, hands every accepted socket over the IPC channel (the
// descriptor itself: no byte passes through it), then runs the command without that channel.
// Inside, no Unix socket can be made (the seccomp filter), so the channel, made outside, is the
// only way out, and it leads only to the proxy (and to the addresses the proxy judged and handed back).
import type * as ChildProcessModule from "node:child_process";
import type * as FsModule from "node:fs";
import type * as NetModule from "node:net";

/** What the bridge listens on, inside. */
export interface BridgeConfig {
	/** The HTTP proxy port. */
	http: number;
	/** The SOCKS5 port. */
	socks: number;
	/** Loopback ports forwarded as they are (listed `localhost:PORT` entries). */
	forwards: number[];
	/** Where to write the `ProxyCommand` helper for ssh, and its source. */
	connectHelper: { path: string; source: string };
}

/** argv: config JSON, the command's program and its arguments. */
function bridgeMain(childProcess: typeof ChildProcessModule, net: typeof NetModule, fs: typeof FsModule): void {
	const [configText = "{}", file = "", ...args] = process.argv.slice(1);
	const config = JSON.parse(configText) as BridgeConfig;
	const send = process.send?.bind(process);
	if (!send) {
		process.stderr.write("toolbelt sandbox: the network bridge has no channel to the proxy\n");
		process.exit(125);
	}
	const listeners: [string, number][] = [
		["http", config.http],
		["socks", config.socks],
		...config.forwards.map((port): [string, number] => ["forward", port]),
	];
	let pending = listeners.length;
	const start = () => {
		fs.writeFileSync(config.connectHelper.path, config.connectHelper.source, { mode: 0o644 });
		const env = { ...process.env };
		delete env.NODE_CHANNEL_FD;
		delete env.NODE_CHANNEL_SERIALIZATION_MODE;
		const child = childProcess.spawn(file, args, { stdio: "inherit", env });
		child.on("error", (error) => {
			process.stderr.write(`${file}: ${error.message}\n`);
			process.exit(127);
		});
		child.on("exit", (code, signal) => {
			if (signal) process.kill(process.pid, signal);
			process.exit(code ?? 1);
		});
		for (const name of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(name, () => child.kill(name));
	};
	for (const [kind, port] of listeners) {
		const server = net.createServer({ pauseOnConnect: true }, (socket) => {
			send({ kind, port }, socket);
		});
		server.on("error", (error) => {
			process.stderr.write(
				`toolbelt sandbox: cannot listen on 127.0.0.1:${port} inside the sandbox: ${error.message}\n`,
			);
			process.exit(125);
		});
		server.listen(port, "127.0.0.1", () => {
			pending -= 1;
			if (pending === 0) start();
		});
	}
	// The channel must not keep the bridge alive once the command has ended.
	process.channel?.unref();
}

/** argv: host, port. Opens a CONNECT tunnel through the HTTP proxy and joins it to stdin/stdout (ssh's `ProxyCommand`). */
function connectHelperMain(net: typeof NetModule, proxyPort: number): void {
	const [host = "", port = ""] = process.argv.slice(2);
	const socket = net.connect(proxyPort, "127.0.0.1", () => {
		socket.write(
			`CONNECT ${host.includes(":") ? `[${host}]` : host}:${port} HTTP/1.1\r\nHost: ${host}:${port}\r\n\r\n`,
		);
	});
	let head = Buffer.alloc(0);
	const onData = (chunk: Buffer) => {
		head = Buffer.concat([head, chunk]);
		const end = head.indexOf("\r\n\r\n");
		if (end === -1) return;
		socket.off("data", onData);
		if (!/^HTTP\/1\.[01] 200/.test(head.toString("latin1"))) {
			const body = head.subarray(end + 4).toString("utf8");
			process.stderr.write(`${body.trim() || head.subarray(0, end).toString("latin1")}\n`);
			process.exit(1);
		}
		const rest = head.subarray(end + 4);
		if (rest.length > 0) process.stdout.write(rest);
		socket.pipe(process.stdout);
		process.stdin.pipe(socket);
	};
	socket.on("data", onData);
	socket.on("error", (error) => {
		process.stderr.write(`toolbelt sandbox proxy: ${error.message}\n`);
		process.exit(1);
	});
	socket.on("close", () => process.exit(0));
}

const modules = 'require("node:child_process"), require("node:net"), require("node:fs")';
// A transpiler that keeps function names (tsx, vitest) calls its `__name` helper inside the bodies.
const prelude = "var __name = (target) => target;";

/** The bridge as a `node -e` program. */
export const bridgeSource = `${prelude}(${String(bridgeMain)})(${modules})`;
/** The ssh `ProxyCommand` helper's source, written into the sandbox's private /tmp by the bridge. */
export const connectHelperSource = (proxyPort: number) =>
	`${prelude}(${String(connectHelperMain)})(require("node:net"), ${proxyPort});\n`;
