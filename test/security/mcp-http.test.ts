// Red team: the Streamable HTTP MCP server (`toolbelt mcp --http`) as a user starts it. Other local
// users, local processes and web pages in the user's browser must not be able to run its tools.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, ensureBuiltCli } from "../cli/helpers/cli-binary.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { textOf, waitFor } from "../mcp/helpers.js";

const tempDir = useTempDir();

/** A `toolbelt mcp --http 127.0.0.1:0` child and what it printed. */
interface Server {
	child: ChildProcess;
	url: string;
	/** The token printed in the `claude mcp add` line (undefined when none was printed). */
	printedToken: string | undefined;
	stderr(): string;
	exited: Promise<number | null>;
}

const running = new Set<ChildProcess>();

/** Starts the built CLI's HTTP server rooted at `root` and waits until it says how to connect. */
async function startServer(root: string, args: string[] = [], env: Record<string, string> = {}): Promise<Server> {
	const child = spawn(process.execPath, [ensureBuiltCli(), "mcp", "--http", "127.0.0.1:0", "--cwd", root, ...args], {
		env: cleanEnv(env),
		stdio: ["ignore", "ignore", "pipe"],
	});
	running.add(child);
	let stderr = "";
	child.stderr?.on("data", (chunk: Buffer) => {
		stderr += chunk.toString("utf8");
	});
	const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
	const urlPattern = /http:\/\/127\.0\.0\.1:\d+\/mcp/;
	const connectLine = /claude mcp add --transport http toolbelt (\S+)(?: --header "Authorization: Bearer ([^"]+)")?/;
	// The base commit prints only the URL; give the connect line a bounded wait, then go on without it.
	await waitFor(() => urlPattern.test(stderr) || child.exitCode !== null, 15_000);
	await waitFor(() => connectLine.test(stderr), 3000).catch(() => {});
	const match = connectLine.exec(stderr);
	return {
		child,
		url: match?.[1] ?? urlPattern.exec(stderr)?.[0] ?? "",
		printedToken: match?.[2],
		stderr: () => stderr,
		exited,
	};
}

afterEach(() => {
	for (const child of running) if (child.exitCode === null) child.kill("SIGKILL");
	running.clear();
});

const jsonHeaders = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const initializeBody = JSON.stringify({
	jsonrpc: "2.0",
	id: 1,
	method: "initialize",
	params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "red-team", version: "1" } },
});

function bashCall(id: number, command: string): string {
	return JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "bash", arguments: { command } } });
}

function post(url: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
	return fetch(url, { method: "POST", headers: { ...jsonHeaders, ...headers }, body });
}

/** Opens a session with the given headers; returns the headers for the session's next requests. */
async function openSession(url: string, headers: Record<string, string>): Promise<Record<string, string>> {
	const response = await post(url, initializeBody, headers);
	await response.text();
	expect(response.status).toBe(200);
	const session = { ...headers, "mcp-session-id": response.headers.get("mcp-session-id") ?? "" };
	await (await post(url, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), session)).text();
	return session;
}

function bearer(token: string | undefined): Record<string, string> {
	return { authorization: `Bearer ${token}` };
}

describe("toolbelt mcp --http: a bearer token guards every request", () => {
	let root: string;
	let server: Server;

	beforeAll(async () => {
		root = await mkdtemp(join(tmpdir(), "toolbelt-"));
		server = await startServer(root);
		// Shared by the tests below: outlives each test's afterEach.
		running.delete(server.child);
	});

	afterAll(async () => {
		if (server?.child.exitCode === null) server.child.kill("SIGKILL");
		if (root) await rm(root, { recursive: true, force: true });
	});

	it("prints a fresh random token (at least 128 bits) with the URL, the header and a claude mcp add line", () => {
		expect(server.printedToken).toMatch(/^[A-Za-z0-9_-]{22,}$/);
		expect(server.stderr()).toContain(`Authorization: Bearer ${server.printedToken}`);
		expect(server.stderr()).toContain(
			`claude mcp add --transport http toolbelt ${server.url} --header "Authorization: Bearer ${server.printedToken}"`,
		);
	});

	it("a request without the token gets 401 and WWW-Authenticate: Bearer, and no tool runs", async () => {
		const marker = join(root, "pwned-no-token");
		const initialize = await post(server.url, initializeBody);
		expect(initialize.status).toBe(401);
		expect(initialize.headers.get("www-authenticate")).toMatch(/^Bearer\b/);
		expect((await post(server.url, bashCall(2, `touch ${marker}`))).status).toBe(401);
		// Nor can a session someone else opened be used without the token.
		const session = await openSession(server.url, bearer(server.printedToken));
		const { authorization: _dropped, ...withoutToken } = session;
		const hijack = await post(server.url, bashCall(3, `touch ${marker}`), withoutToken);
		expect(hijack.status).toBe(401);
		expect(existsSync(marker)).toBe(false);
		// The same call with the token does run: the 401s above were the token, nothing else.
		const allowed = await post(server.url, bashCall(4, `touch ${marker}`), session);
		expect(await allowed.text()).toContain("result");
		expect(existsSync(marker)).toBe(true);
	});

	it("a wrong token gets 401 (same length, a prefix, another scheme), and no tool runs", async () => {
		const marker = join(root, "pwned-wrong-token");
		const session = await openSession(server.url, bearer(server.printedToken));
		const token = server.printedToken ?? "";
		const sameLength = `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`;
		for (const authorization of [
			`Bearer ${sameLength}`,
			`Bearer ${token.slice(0, 8)}`,
			"Bearer ",
			`Basic ${Buffer.from(`user:${token}`).toString("base64")}`,
			token,
		]) {
			const response = await post(server.url, bashCall(5, `touch ${marker}`), { ...session, authorization });
			expect(response.status).toBe(401);
			expect(response.headers.get("www-authenticate")).toMatch(/^Bearer\b.*invalid_token/);
		}
		expect(existsSync(marker)).toBe(false);
	});

	it("the right token works with the MCP SDK's own Client", async () => {
		const client = new Client({ name: "red-team", version: "1" });
		await client.connect(
			new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: bearer(server.printedToken) } }),
		);
		try {
			const result = await client.callTool({ name: "bash", arguments: { command: "echo sdk-client-ran" } });
			expect(textOf(result)).toContain("sdk-client-ran");
		} finally {
			await client.close();
		}
		const unauthenticated = new Client({ name: "red-team", version: "1" });
		await expect(unauthenticated.connect(new StreamableHTTPClientTransport(new URL(server.url)))).rejects.toThrow();
	});

	it("a request with an Origin header gets 403, even from localhost on another port and with the right token", async () => {
		const marker = join(root, "pwned-origin");
		const ownOrigin = new URL(server.url).origin;
		for (const origin of ["http://localhost:1234", "http://127.0.0.1:1", ownOrigin, "null", "https://evil.example"]) {
			const response = await post(server.url, bashCall(6, `touch ${marker}`), {
				...bearer(server.printedToken),
				origin,
			});
			expect(response.status).toBe(403);
			const preflight = await fetch(server.url, {
				method: "OPTIONS",
				headers: { origin, "access-control-request-method": "POST" },
			});
			expect(preflight.status).toBe(403);
			expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
		}
		expect(existsSync(marker)).toBe(false);
	});
});

describe("toolbelt mcp --http: how the token and the origins are chosen", () => {
	it("TOOLBELT_MCP_TOKEN, when set, is the token, and its value is not printed", async () => {
		const root = tempDir();
		const token = "env-token-for-the-red-team-0123456789";
		const server = await startServer(root, [], { TOOLBELT_MCP_TOKEN: token });
		expect(server.stderr()).not.toContain(token);
		expect(server.stderr()).toContain('--header "Authorization: Bearer $TOOLBELT_MCP_TOKEN"');
		expect((await post(server.url, initializeBody)).status).toBe(401);
		expect((await post(server.url, initializeBody, bearer("some-other-token-0123456789"))).status).toBe(401);
		const client = new Client({ name: "red-team", version: "1" });
		await client.connect(
			new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: bearer(token) } }),
		);
		expect(textOf(await client.callTool({ name: "bash", arguments: { command: "echo env-token-ran" } }))).toContain(
			"env-token-ran",
		);
		await client.close();
	});

	it("a TOOLBELT_MCP_TOKEN too short to be safe is refused, and nothing is served", async () => {
		const child = spawn(process.execPath, [ensureBuiltCli(), "mcp", "--http", "127.0.0.1:0"], {
			env: cleanEnv({ TOOLBELT_MCP_TOKEN: "1234" }),
			stdio: ["ignore", "ignore", "pipe"],
		});
		running.add(child);
		let stderr = "";
		child.stderr.on("data", (chunk: Buffer) => {
			stderr += chunk.toString("utf8");
		});
		await waitFor(() => child.exitCode !== null, 15_000);
		expect(child.exitCode).toBe(2);
		expect(stderr).toMatch(/TOOLBELT_MCP_TOKEN holds a token of 4 characters/);
	});

	it("--no-auth serves without a token, says so loudly, and still refuses web origins", async () => {
		const root = tempDir();
		const server = await startServer(root, ["--no-auth"]);
		expect(server.stderr()).toMatch(/WARNING: --no-auth: the HTTP endpoint has no token/);
		expect(server.printedToken).toBeUndefined();
		const session = await openSession(server.url, {});
		expect(await (await post(server.url, bashCall(2, "echo no-auth-ran"), session)).text()).toContain("no-auth-ran");
		expect((await post(server.url, initializeBody, { origin: "http://localhost:1234" })).status).toBe(403);
	});

	it("--allow-origin lets exactly that browser origin in, and it still needs the token", async () => {
		const root = tempDir();
		const allowed = "http://localhost:6274";
		const server = await startServer(root, ["--allow-origin", allowed]);
		const preflight = await fetch(server.url, {
			method: "OPTIONS",
			headers: { origin: allowed, "access-control-request-method": "POST" },
		});
		expect(preflight.status).toBe(204);
		expect(preflight.headers.get("access-control-allow-origin")).toBe(allowed);
		expect(preflight.headers.get("access-control-allow-headers")).toMatch(/authorization/);
		expect((await post(server.url, initializeBody, { origin: allowed })).status).toBe(401);
		const ok = await post(server.url, initializeBody, { origin: allowed, ...bearer(server.printedToken) });
		expect(ok.status).toBe(200);
		expect(ok.headers.get("access-control-allow-origin")).toBe(allowed);
		expect(ok.headers.get("access-control-expose-headers")).toMatch(/mcp-session-id/);
		const other = await post(server.url, initializeBody, {
			origin: "http://localhost:6275",
			...bearer(server.printedToken),
		});
		expect(other.status).toBe(403);
	});

	it("--token-file creates a private token file, reuses it on the next start, and refuses one others can read", async () => {
		const directory = join(tempDir(), "shared");
		await mkdir(directory, { recursive: true });
		// A folder others may enter: only the file's own mode keeps the token private.
		await chmod(directory, 0o755);
		const tokenFile = join(directory, "mcp-token");
		const first = await startServer(tempDir(), ["--token-file", tokenFile]);
		expect((await stat(tokenFile)).mode & 0o777).toBe(0o600);
		const token = (await readFile(tokenFile, "utf8")).trim();
		expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
		expect(first.printedToken).toBe(token);
		first.child.kill("SIGTERM");
		await first.exited;
		const second = await startServer(tempDir(), ["--token-file", tokenFile]);
		expect(second.printedToken).toBe(token);
		expect((await post(second.url, initializeBody, bearer(token))).status).toBe(200);
		second.child.kill("SIGTERM");
		await second.exited;

		const readable = join(directory, "readable-token");
		await writeFile(readable, "a-token-others-can-read-0123456789\n", { mode: 0o644 });
		await chmod(readable, 0o644);
		const refused = spawnSync(
			process.execPath,
			[ensureBuiltCli(), "mcp", "--http", "127.0.0.1:0", "--token-file", readable],
			{
				env: cleanEnv(),
				encoding: "utf8",
				timeout: 15_000,
			},
		);
		expect(refused.status).toBe(2);
		expect(refused.stderr).toMatch(/can be read or written by other users.*chmod 600/s);
	});
});

/** Why this machine cannot run a command as `nobody`, or undefined when it can. */
function userSwitchProblem(): string | undefined {
	if (process.platform !== "linux") return "not Linux";
	if (process.getuid?.() !== 0) return "the tests do not run as root, so they cannot switch to user nobody";
	const probe = spawnSync("runuser", ["-u", "nobody", "--", process.execPath, "-e", "process.exit(0)"], {
		encoding: "utf8",
		timeout: 15_000,
	});
	if (probe.error) return `runuser failed to start (${probe.error.message})`;
	if (probe.status !== 0)
		return `runuser -u nobody could not run node (${probe.stderr.trim() || `exit ${probe.status}`})`;
	return undefined;
}

describe("toolbelt mcp --http: another local user", () => {
	it("gets 401 from the server and cannot read its token file", async (context) => {
		const problem = userSwitchProblem();
		if (problem) {
			console.warn(`skipped "another local user": ${problem}`);
			context.skip();
		}
		const root = tempDir();
		await chmod(root, 0o755);
		const server = await startServer(root);
		const marker = join(root, "pwned-by-nobody");
		const script = `
			const headers = ${JSON.stringify(jsonHeaders)};
			const post = (body) => fetch(${JSON.stringify(server.url)}, { method: "POST", headers, body }).then((r) => r.status);
			Promise.all([post(${JSON.stringify(initializeBody)}), post(${JSON.stringify(bashCall(2, `touch ${marker}`))})])
				.then((statuses) => console.log(JSON.stringify({ uid: process.getuid(), statuses })));`;
		const asNobody = spawnSync("runuser", ["-u", "nobody", "--", process.execPath, "-e", script], {
			encoding: "utf8",
			timeout: 15_000,
		});
		expect(asNobody.stderr).toBe("");
		const seen = JSON.parse(asNobody.stdout) as { uid: number; statuses: number[] };
		expect(seen.uid).not.toBe(process.getuid?.());
		expect(seen.statuses).toEqual([401, 401]);
		expect(existsSync(marker)).toBe(false);
		const tokenFile = join(root, "token");
		const withFile = await startServer(root, ["--token-file", tokenFile]);
		expect(withFile.printedToken).toBeDefined();
		const readToken = spawnSync("runuser", ["-u", "nobody", "--", "cat", tokenFile], {
			encoding: "utf8",
			timeout: 15_000,
		});
		expect(readToken.status).not.toBe(0);
		expect(readToken.stdout).toBe("");
		await rm(tokenFile, { force: true });
	});
});
