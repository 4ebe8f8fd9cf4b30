// Credentials that never enter the sandbox (`sandbox.network.secrets`), as root and as an
// unprivileged user, against the built CLI. Two HTTPS servers and a plain HTTP one listen on this
// machine's loopback under made-up names that only the proxy resolves. The proxy trusts their CA
// through NODE_EXTRA_CA_CERTS of the toolbelt process; the sandbox trusts only the session's CA
// (and the system's). A variable and an ~/.npmrc token are listed for secret.test alone; each
// server records the credentials it was sent, so every check looks at what really arrived where.
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { createServer as createHttpServer, type IncomingMessage, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createSessionCa } from "../../src/safety/sandbox/network/secrets/session-ca.js";
import { CliProcesses, cleanEnv, ensureBuiltCli, sharedCacheHome } from "../cli/helpers/cli-binary.js";
import { sandboxUnavailableReason } from "../helpers/prerequisites.js";
import { handOver, type TestUser, testUsers, userPrefix } from "../helpers/test-users.js";
import { textOf } from "../mcp/helpers.js";

const unavailable = await sandboxUnavailableReason();

vi.setConfig({ testTimeout: 180_000 });

const cli = new CliProcesses();
const realToken = "real-api-token-5f1c0ffee5f1c0ffee";
const realNpmToken = "npm_realNpmToken0123456789abcdef";

/** A loopback server that records each request's path and credentials. */
interface Recorder {
	server: Server;
	port: number;
	seen: { path: string; authorization: string }[];
}

function record(seen: Recorder["seen"], request: IncomingMessage): void {
	seen.push({ path: request.url ?? "", authorization: request.headers.authorization ?? "" });
}

async function listen(server: Server, seen: Recorder["seen"]): Promise<Recorder> {
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	return { server, port: (server.address() as { port: number }).port, seen };
}

let upstreamCaPem = "";
let secretHost: Recorder;
let otherHost: Recorder;
let plainHost: Recorder;

beforeAll(async () => {
	// The test servers' own CA (made the way the proxy makes the session's): trusted by the proxy only.
	const upstreamCa = await createSessionCa();
	upstreamCaPem = upstreamCa.certificatePem;
	const https = (name: string) => {
		const seen: Recorder["seen"] = [];
		const context = upstreamCa.contextFor(name);
		const server = createHttpsServer({ SNICallback: (_name, done) => done(null, context) }, (request, response) => {
			record(seen, request);
			response.end(`${name.toUpperCase()}-ANSWER\n`);
		});
		return listen(server, seen);
	};
	secretHost = await https("secret.test");
	otherHost = await https("other.test");
	const plainSeen: Recorder["seen"] = [];
	plainHost = await listen(
		createHttpServer((request, response) => {
			record(plainSeen, request);
			response.end("PLAIN-ANSWER\n");
		}),
		plainSeen,
	);
});

afterAll(() => {
	for (const host of [secretHost, otherHost, plainHost]) host?.server.close();
});

function settings() {
	const ports = [secretHost.port, otherHost.port, plainHost.port];
	return {
		sandbox: {
			enabled: true,
			network: {
				allow: ["secret.test", "other.test", "plain.test", ...ports.map((port) => `127.0.0.1:${port}`)],
				hosts: ["secret.test=127.0.0.1", "other.test=127.0.0.1", "plain.test=127.0.0.1"],
				secrets: [
					{ env: "TEST_API_TOKEN", hosts: ["secret.test"] },
					{ file: "~/.npmrc", hosts: ["secret.test"] },
				],
			},
		},
	};
}

/**
 * What a network session left in the sandbox's state directories under `runtime` once its process
 * ended: its folder (CA certificate and bundle, masked token files) and the proxy's socket.
 */
async function leftovers(runtime: string): Promise<string[]> {
	const left: string[] = [];
	for (const stateDir of await readdir(runtime)) {
		for (const name of await readdir(join(runtime, stateDir))) {
			if (/^network-|^proxy-|session-ca|masked-token-file/.test(name)) left.push(`${stateDir}/${name}`);
		}
	}
	return left;
}

/** The home, project and runtime folders of one run, with the settings and the token file in place. */
async function prepare(user: TestUser, prefix: string) {
	ensureBuiltCli();
	const outside = await mkdtemp(join("/var/tmp", prefix));
	const home = join(outside, "home");
	const project = join(outside, "project");
	// The sandbox's state directory where the sandbox can read it (not under its private /tmp).
	const runtime = join(outside, "runtime");
	for (const directory of [join(home, ".toolbelt"), project, runtime]) await mkdir(directory, { recursive: true });
	await writeFile(join(home, ".toolbelt", "settings.json"), JSON.stringify(settings()));
	await writeFile(join(home, ".npmrc"), `//secret.test:${secretHost.port}/:_authToken=${realNpmToken}\n`);
	await writeFile(join(outside, "upstream-ca.pem"), upstreamCaPem);
	await handOver(outside, user);
	const env = cleanEnv({
		HOME: home,
		XDG_RUNTIME_DIR: runtime,
		TEST_API_TOKEN: realToken,
		NODE_EXTRA_CA_CERTS: join(outside, "upstream-ca.pem"),
	});
	return { outside, project, runtime, env };
}

/** Runs `command` through the built CLI's sandbox as `user`, the secrets in its environment and home. */
async function sandboxed(user: TestUser, command: string) {
	const { outside, project, runtime, env } = await prepare(user, "toolbelt-sandbox-secrets-");
	try {
		const run = await cli.run(["tool", "bash", JSON.stringify({ command }), "--sandbox"], { cwd: project, user, env });
		return { ...run, output: run.stdout + run.stderr, left: await leftovers(runtime) };
	} finally {
		cli.killAll();
		await rm(outside, { recursive: true, force: true });
	}
}

describe.skipIf(unavailable !== undefined)(
	"secrets kept out of the sandbox, as root and as an unprivileged user",
	() => {
		describe.each(testUsers())("as %s", (user) => {
			it("the sandbox sees placeholders; only the host a secret belongs to gets the real value; elsewhere it is refused", async () => {
				const curl = "curl -sS -m 30";
				const secret = `https://secret.test:${secretHost.port}`;
				const npmToken = `$(sed -n 's/.*_authToken=//p' ~/.npmrc)`;
				const run = await sandboxed(
					user,
					[
						`echo "inside: $TEST_API_TOKEN"; cat ~/.npmrc`,
						`${curl} -H "Authorization: Bearer $TEST_API_TOKEN" ${secret}/bearer`,
						`${curl} -u "me:$TEST_API_TOKEN" ${secret}/basic`,
						`${curl} -H "Authorization: Bearer ${npmToken}" ${secret}/npmrc`,
						// TLS to another host: the proxy does not end it, so that host gets the placeholder, nothing more.
						`${curl} -k -H "Authorization: Bearer $TEST_API_TOKEN" https://other.test:${otherHost.port}/elsewhere`,
						// In the clear to another host: the proxy sees the placeholder and refuses (HTTP proxy, then SOCKS).
						`${curl} -H "Authorization: Bearer $TEST_API_TOKEN" http://plain.test:${plainHost.port}/plain`,
						`${curl} --socks5-hostname 127.0.0.1:1080 -H "X-Token: $TEST_API_TOKEN" http://plain.test:${plainHost.port}/socks`,
						`echo; echo "done"`,
					].join("; echo; "),
				);
				expect(run.output).toContain("done");
				// Inside: placeholders only.
				expect(run.output).not.toContain(realToken);
				expect(run.output).not.toContain(realNpmToken);
				expect(run.output).toMatch(/inside: toolbelt-placeholder-[0-9a-f]{32}/);
				expect(run.output).toMatch(/_authToken=toolbelt-placeholder-[0-9a-f]{32}/);
				// The host they belong to got the real values, as a bearer token and in basic credentials.
				expect(run.output).toContain("SECRET.TEST-ANSWER");
				const arrived = Object.fromEntries(secretHost.seen.map((request) => [request.path, request.authorization]));
				expect(arrived["/bearer"]).toBe(`Bearer ${realToken}`);
				expect(arrived["/basic"]).toBe(`Basic ${Buffer.from(`me:${realToken}`).toString("base64")}`);
				expect(arrived["/npmrc"]).toBe(`Bearer ${realNpmToken}`);
				// Another host over TLS got the placeholder, never the value.
				expect(otherHost.seen.map((request) => request.path)).toContain("/elsewhere");
				for (const request of otherHost.seen) expect(request.authorization).toMatch(/^Bearer toolbelt-placeholder-/);
				// In the clear, refused before it left, and the model is told.
				expect(plainHost.seen).toEqual([]);
				expect(run.output).toContain("the placeholder of $TEST_API_TOKEN was sent to plain.test");
			});

			it("the sandbox trusts the session's CA and cannot read its key", async () => {
				const run = await sandboxed(
					user,
					[
						`grep -c "BEGIN CERTIFICATE" "$NODE_EXTRA_CA_CERTS"`,
						`test -s "$SSL_CERT_FILE" && echo bundle-present`,
						// The state directory is readable in here (XDG_RUNTIME_DIR is outside /tmp): it holds no key.
						`ls -R "$XDG_RUNTIME_DIR"/toolbelt-sandbox-*/ | grep -c session-ca`,
						`grep -rl "PRIVATE KEY" "$XDG_RUNTIME_DIR" /tmp "$HOME" 2>/dev/null | wc -l | sed 's/^/keys-found: /'`,
					].join("; "),
				);
				expect(run.stdout).toMatch(/^1\n/);
				expect(run.stdout).toContain("bundle-present");
				expect(run.stdout).toMatch(/\n[1-9]\d*\n/);
				expect(run.stdout).toContain("keys-found: 0");
				// Once the CLI has exited, none of the session's files is left.
				expect(run.left).toEqual([]);
			});

			it("an MCP server stopped with SIGTERM leaves none of the session's files", async () => {
				const { outside, project, runtime, env } = await prepare(user, "toolbelt-sandbox-secrets-mcp-");
				const [file, ...prefix] = [...userPrefix(user), process.execPath];
				let stderr = "";
				const transport = new StdioClientTransport({
					command: file ?? process.execPath,
					args: [...prefix, ensureBuiltCli(), "mcp", "--sandbox", "--cwd", project],
					cwd: project,
					env: { ...env, XDG_CACHE_HOME: sharedCacheHome(user) },
					stderr: "pipe",
				});
				transport.stderr?.on("data", (chunk: Buffer) => {
					stderr += chunk.toString("utf8");
				});
				const client = new Client({ name: "sandbox-secrets-cleanup", version: "1.0.0" });
				try {
					await client.connect(transport).catch((error: unknown) => {
						throw new Error(`toolbelt mcp did not start (${String(error)}); its stderr:\n${stderr}`);
					});
					const result = await client.callTool({
						name: "bash",
						arguments: {
							command: `ls -R "$XDG_RUNTIME_DIR"/toolbelt-sandbox-*/ | grep -c session-ca; echo "$TEST_API_TOKEN"`,
						},
					});
					const text = textOf(result);
					expect(text, stderr).toMatch(/^[1-9]\d*\n/);
					expect(text).toContain("toolbelt-placeholder-");
					expect((await leftovers(runtime)).length).toBeGreaterThan(0);
					const pid = transport.pid;
					expect(pid).toBeTypeOf("number");
					const ended = new Promise<void>((resolve) => {
						client.onclose = () => resolve();
					});
					process.kill(pid as number, "SIGTERM");
					await ended;
					// The transport closes when stdout does; the process may still be finishing its exit.
					await vi.waitFor(
						() => {
							try {
								process.kill(pid as number, 0);
							} catch {
								return;
							}
							throw new Error("still running");
						},
						{ timeout: 60_000, interval: 100 },
					);
					expect(await leftovers(runtime), stderr).toEqual([]);
				} finally {
					await client.close().catch(() => {});
					await rm(outside, { recursive: true, force: true });
				}
			});
		});
	},
);
