// Every wait of the proxy ends: a client on the proxy's socket (as the launcher joins a sandboxed
// connection to it) that sends half a request head, or CONNECTs to a host a secret belongs to and
// never starts TLS, is closed after the head timeout; an endless header line is cut at Node's limit.
import { mkdtemp, rm } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseNetworkPolicy } from "../../../src/safety/sandbox/network/policy.js";
import { type NetworkProxy, startNetworkProxy } from "../../../src/safety/sandbox/network/proxy-server.js";
import { startSecrets } from "../../../src/safety/sandbox/network/secrets/index.js";

let proxy: NetworkProxy;
let stateDir = "";

beforeAll(async () => {
	stateDir = await mkdtemp(join(tmpdir(), "toolbelt-proxy-bounds-"));
	const secrets = await startSecrets([{ env: "BOUNDS_TOKEN", hosts: ["secret.test"] }], {
		environment: { BOUNDS_TOKEN: "bounds-secret" },
		homeDir: "/nonexistent",
		stateDir,
	});
	proxy = await startNetworkProxy({
		stateDir,
		decide: { policy: parseNetworkPolicy(["secret.test", "127.0.0.1:9"], []), hosts: { "secret.test": "127.0.0.1" } },
		secrets: secrets?.proxy,
		headTimeoutMs: 300,
	});
});

afterAll(async () => {
	await proxy?.close();
	await rm(stateDir, { recursive: true, force: true });
});

/** Writes `data` after the launcher's line and resolves with what came back once the proxy closed (or "open" after 5 s). */
function closedAfter(data: string): Promise<string> {
	return new Promise((resolve) => {
		const socket = connect(proxy.socketPath);
		let answer = "";
		const timer = setTimeout(() => {
			socket.destroy();
			resolve("open");
		}, 5_000);
		socket.on("connect", () => socket.write(`call http 0\n${data}`));
		socket.on("data", (chunk: Buffer) => {
			answer += chunk.toString("latin1");
		});
		socket.on("error", () => {});
		socket.on("close", () => {
			clearTimeout(timer);
			resolve(answer || "closed");
		});
	});
}

describe("the proxy's waits end", () => {
	it("closes a client that never finishes its request head", async () => {
		expect(await closedAfter("GET http://secret.test:9/ HTTP/1.1\r\nHost: secret.te")).not.toBe("open");
	});

	it("closes a client that CONNECTs to a host a secret belongs to and never starts TLS", async () => {
		const answer = await closedAfter("CONNECT secret.test:9 HTTP/1.1\r\nHost: secret.test:9\r\n\r\n");
		expect(answer).toMatch(/^HTTP\/1\.1 200/);
	});

	it("cuts an endless header line at Node's limit", async () => {
		const answer = await closedAfter(`GET http://secret.test:9/ HTTP/1.1\r\nX-Long: ${"a".repeat(1 << 20)}`);
		expect(answer).toMatch(/^HTTP\/1\.1 431/);
	});
});
