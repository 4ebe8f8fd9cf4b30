// The set-up the tests of secrets kept out of the sandbox share (`sandbox.network.secrets`):
// loopback servers under made-up names that record every request they get, with a CA of their own
// that only the proxy trusts, and the folders of one run of the built CLI (a home with the settings
// and a token file, a project, the sandbox's state directory where the sandbox can read it).
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { createServer as createHttpServer, type IncomingMessage, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { join } from "node:path";
import { createSessionCa, type SessionCa } from "../../../src/safety/sandbox/network/secrets/session-ca.js";
import { cleanEnv, ensureBuiltCli } from "../../cli/helpers/cli-binary.js";
import { handOver, type TestUser } from "../../helpers/test-users.js";

/** What one request brought: where it was addressed and every header that could carry a value. */
export interface SeenRequest {
	url: string;
	host: string;
	authorization: string;
	/** Every header, `name\nvalue` one after the other, as it came. */
	headers: string;
}

/** A loopback server and the requests it got. */
export interface Recorder {
	server: Server;
	port: number;
	seen: SeenRequest[];
}

function record(seen: SeenRequest[], request: IncomingMessage): void {
	seen.push({
		url: request.url ?? "",
		host: request.headers.host ?? "",
		authorization: request.headers.authorization ?? "",
		headers: request.rawHeaders.join("\n"),
	});
}

async function listen(server: Server, seen: SeenRequest[]): Promise<Recorder> {
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	return { server, port: (server.address() as { port: number }).port, seen };
}

/** A server's answer made from the request: its body and headers. */
export interface Answer {
	body: string;
	headers?: Record<string, string>;
}

/** The servers' CA (made the way the proxy makes the session's) and the two kinds of recording server. */
export interface UpstreamServers {
	/** Trusted by the proxy (NODE_EXTRA_CA_CERTS of the toolbelt process), never by the sandbox. */
	caPem: string;
	/** An HTTPS server answering as `name` with `answer`, or with what `answer` makes of the request (an echo). */
	https(name: string, answer: string | ((request: IncomingMessage) => Answer)): Promise<Recorder>;
	/** A plain HTTP server answering `answer`, or with what `answer` makes of the request. */
	plain(answer: string | ((request: IncomingMessage) => Answer)): Promise<Recorder>;
}

/** Makes the upstream CA; each server it then starts records its requests and answers one line. */
export async function upstreamServers(): Promise<UpstreamServers> {
	const ca: SessionCa = await createSessionCa();
	return {
		caPem: ca.certificatePem,
		https: (name, answer) => {
			const seen: SeenRequest[] = [];
			const context = ca.contextFor(name);
			const server = createHttpsServer({ SNICallback: (_name, done) => done(null, context) }, (request, response) => {
				record(seen, request);
				request.resume();
				const made = typeof answer === "string" ? { body: answer } : answer(request);
				response.writeHead(200, made.headers).end(`${made.body}\n`);
			});
			return listen(server, seen);
		},
		plain: (answer) => {
			const seen: SeenRequest[] = [];
			const server = createHttpServer((request, response) => {
				record(seen, request);
				request.resume();
				const made = typeof answer === "string" ? { body: answer } : answer(request);
				response.writeHead(200, made.headers).end(`${made.body}\n`);
			});
			return listen(server, seen);
		},
	};
}

/** The folders and environment of one run. */
export interface SecretsRun {
	/** Everything of the run, under /var/tmp (a real home lives outside /tmp); remove it after. */
	outside: string;
	project: string;
	/** The sandbox's state directories go here (`XDG_RUNTIME_DIR`), outside the sandbox's private /tmp. */
	runtime: string;
	env: Record<string, string>;
}

/**
 * Makes the folders of one run as `user`: `settings` in ~/.toolbelt/settings.json, `npmrc` in
 * ~/.npmrc, the upstream CA trusted by the toolbelt process, and `env` (the secrets) on top.
 */
export async function prepareSecretsRun(options: {
	user: TestUser;
	prefix: string;
	settings: unknown;
	npmrc: string;
	caPem: string;
	env: Record<string, string>;
}): Promise<SecretsRun> {
	ensureBuiltCli();
	const outside = await mkdtemp(join("/var/tmp", options.prefix));
	const home = join(outside, "home");
	const project = join(outside, "project");
	const runtime = join(outside, "runtime");
	for (const directory of [join(home, ".toolbelt"), project, runtime]) await mkdir(directory, { recursive: true });
	await writeFile(join(home, ".toolbelt", "settings.json"), JSON.stringify(options.settings));
	await writeFile(join(home, ".npmrc"), options.npmrc);
	await writeFile(join(outside, "upstream-ca.pem"), options.caPem);
	await handOver(outside, options.user);
	const env = cleanEnv({
		HOME: home,
		XDG_RUNTIME_DIR: runtime,
		NODE_EXTRA_CA_CERTS: join(outside, "upstream-ca.pem"),
		...options.env,
	});
	return { outside, project, runtime, env };
}
