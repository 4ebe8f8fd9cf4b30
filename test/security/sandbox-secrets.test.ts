// Credentials that never enter the sandbox (`sandbox.network.secrets`), as root and as an
// unprivileged user, against the built CLI. Two HTTPS servers and a plain HTTP one listen on this
// machine's loopback under made-up names that only the proxy resolves. The proxy trusts their CA
// through NODE_EXTRA_CA_CERTS of the toolbelt process; the sandbox trusts only the session's CA
// (and the system's). A variable and an ~/.npmrc token are listed for secret.test alone; each
// server records the credentials it was sent, so every check looks at what really arrived where.
import { execFile } from "node:child_process";
import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { CliProcesses, ensureBuiltCli, sharedCacheHome } from "../cli/helpers/cli-binary.js";
import { sandboxUnavailableReason } from "../helpers/prerequisites.js";
import { type TestUser, testUsers, userPrefix } from "../helpers/test-users.js";
import { textOf } from "../mcp/helpers.js";
import { prepareSecretsRun, type Recorder, upstreamServers } from "../safety/network/secrets-sandbox.js";

const unavailable = await sandboxUnavailableReason();

vi.setConfig({ testTimeout: 180_000 });

const cli = new CliProcesses();
const realToken = "real-api-token-5f1c0ffee5f1c0ffee";
const realNpmToken = "npm_realNpmToken0123456789abcdef";

let upstreamCaPem = "";
let secretHost: Recorder;
let otherHost: Recorder;
let plainHost: Recorder;

beforeAll(async () => {
	const upstream = await upstreamServers();
	upstreamCaPem = upstream.caPem;
	secretHost = await upstream.https("secret.test", "SECRET.TEST-ANSWER");
	otherHost = await upstream.https("other.test", "OTHER.TEST-ANSWER");
	plainHost = await upstream.plain("PLAIN-ANSWER");
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
function prepare(user: TestUser, prefix: string) {
	return prepareSecretsRun({
		user,
		prefix,
		settings: settings(),
		npmrc: `//secret.test:${secretHost.port}/:_authToken=${realNpmToken}\n`,
		caPem: upstreamCaPem,
		env: { TEST_API_TOKEN: realToken },
	});
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
				const arrived = Object.fromEntries(secretHost.seen.map((request) => [request.url, request.authorization]));
				expect(arrived["/bearer"]).toBe(`Bearer ${realToken}`);
				expect(arrived["/basic"]).toBe(`Basic ${Buffer.from(`me:${realToken}`).toString("base64")}`);
				expect(arrived["/npmrc"]).toBe(`Bearer ${realNpmToken}`);
				// Another host over TLS got the placeholder, never the value.
				expect(otherHost.seen.map((request) => request.url)).toContain("/elsewhere");
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

			it("secrets with isolateProcesses: false are refused: the command would share toolbelt's processes", async () => {
				// Through the library (the option is the caller's, not a setting), as `user`, from the build.
				const { outside, project, env } = await prepare(user, "toolbelt-sandbox-secrets-shared-");
				const library = fileURLToPath(new URL("../../dist/safety/index.js", import.meta.url));
				const look = "grep -l -a -s real-api-toke[n] /proc/[0-9]*/environ /proc/[0-9]*/cmdline; echo command-ran";
				const script = [
					`import { spawnSync } from "node:child_process";`,
					`import { createSandbox } from ${JSON.stringify(library)};`,
					"try {",
					"  const sandbox = await createSandbox({ writableRoots: [process.cwd()], isolateProcesses: false,",
					`    network: { allow: ["secret.test"], secrets: [{ env: "TEST_API_TOKEN", hosts: ["secret.test"] }] } });`,
					"  const launch = await sandbox.prepare(process.cwd());",
					`  const run = spawnSync(launch.file, [...launch.args, "/bin/sh", "-c", ${JSON.stringify(look)}], { env: { ...process.env, ...launch.env }, encoding: "utf8", timeout: 60000 });`,
					"  console.log(run.stdout + run.stderr);",
					"  await launch.release();",
					"  await sandbox.close();",
					"} catch (error) {",
					'  console.log("refused: " + error.message);',
					"}",
				].join("\n");
				const [file = process.execPath, ...args] = [
					...userPrefix(user),
					process.execPath,
					"--input-type=module",
					"-e",
					script,
				];
				try {
					const { stdout, stderr } = await promisify(execFile)(file, args, {
						cwd: project,
						env: { ...env, XDG_CACHE_HOME: sharedCacheHome(user) },
						timeout: 120_000,
					});
					expect(stdout, stderr).toContain(
						"refused: sandbox.network.secrets keeps $TEST_API_TOKEN out of the sandbox, but with isolateProcesses: false",
					);
					expect(stdout).not.toContain("command-ran");
				} finally {
					await rm(outside, { recursive: true, force: true });
				}
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
