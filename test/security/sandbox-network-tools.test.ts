// Everyday tools through the sandbox's network policy, as root and as an unprivileged user, with
// the built CLI: `npm install` from a tiny registry this test serves on loopback (a packument and
// a tarball, over HTTP), and `git clone` over SSH from a loopback sshd (through the proxy, by the
// `ProxyCommand` the sandbox puts in GIT_SSH_COMMAND). Each allowed under one made-up name and
// refused under another name for the same server, which the command and the model are told.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { ShellNetworkConnection } from "../../src/tools/index.js";
import { CliProcesses, cleanEnv, ensureBuiltCli } from "../cli/helpers/cli-binary.js";
import { sandboxUnavailableReason } from "../helpers/prerequisites.js";
import { handOver, type TestUser, testUsers } from "../helpers/test-users.js";
import { type SshdAttempt, startSshdOrSkip } from "../remote/sshd-fixture.js";

const unavailable = await sandboxUnavailableReason();

vi.setConfig({ testTimeout: 240_000, hookTimeout: 60_000 });

const cli = new CliProcesses();

let registry: Server;
let registryPort = 0;
const registryRequests: string[] = [];
let sshd: SshdAttempt;
let sshdPort = 0;
let repositories = "";

/** A tarball of a one-file package, as `npm pack` lays it out (`package/…`). */
async function packageTarball(folder: string): Promise<Buffer> {
	await mkdir(join(folder, "package"), { recursive: true });
	await writeFile(
		join(folder, "package", "package.json"),
		JSON.stringify({ name: "tiny-pkg", version: "1.0.0", main: "index.js" }),
	);
	await writeFile(join(folder, "package", "index.js"), 'module.exports = "TINY-PACKAGE-LOADED";\n');
	execFileSync("tar", ["-czf", join(folder, "tiny.tgz"), "-C", folder, "package"]);
	return readFile(join(folder, "tiny.tgz"));
}

beforeAll(async () => {
	repositories = await mkdtemp(join("/var/tmp", "toolbelt-network-tools-"));
	const tarball = await packageTarball(repositories);
	registry = createServer((request, response) => {
		const path = request.url ?? "";
		registryRequests.push(`${request.headers.host} ${path}`);
		const base = `http://${request.headers.host}`;
		if (path === "/tiny-pkg") {
			const dist = {
				tarball: `${base}/tiny-pkg/-/tiny-pkg-1.0.0.tgz`,
				shasum: createHash("sha1").update(tarball).digest("hex"),
				integrity: `sha512-${createHash("sha512").update(tarball).digest("base64")}`,
			};
			const version = { name: "tiny-pkg", version: "1.0.0", main: "index.js", dist };
			response.writeHead(200, { "content-type": "application/json" });
			response.end(
				JSON.stringify({ name: "tiny-pkg", "dist-tags": { latest: "1.0.0" }, versions: { "1.0.0": version } }),
			);
		} else if (path === "/tiny-pkg/-/tiny-pkg-1.0.0.tgz") {
			response.writeHead(200, { "content-type": "application/octet-stream" }).end(tarball);
		} else response.writeHead(404).end("{}");
	});
	await new Promise<void>((resolve) => registry.listen(0, "127.0.0.1", resolve));
	registryPort = (registry.address() as { port: number }).port;

	// A bare repository with one commit, owned by root (sshd's login), readable by everyone.
	const work = join(repositories, "work");
	const git = (...args: string[]) => execFileSync("git", args, { cwd: work, stdio: "pipe" });
	await mkdir(work);
	git("init", "-q", "-b", "main");
	await writeFile(join(work, "README"), "CLONED-OVER-SSH\n");
	git("add", "README");
	git("-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "one");
	execFileSync("git", ["clone", "-q", "--bare", work, join(repositories, "repo.git")], { stdio: "pipe" });
	await chmod(repositories, 0o755);
	sshd = await startSshdOrSkip();
	sshdPort = Number(/:(\d+)$/.exec(sshd.sshd?.urlPrefix ?? "")?.[1] ?? 0);
});

afterAll(async () => {
	registry?.close();
	await sshd?.sshd?.stop();
	await rm(repositories, { recursive: true, force: true });
});

function settings() {
	return {
		sandbox: {
			enabled: true,
			network: {
				allow: ["registry.test", "git.test", `127.0.0.1:${registryPort}`, `127.0.0.1:${sshdPort}`],
				hosts: ["registry.test=127.0.0.1", "blocked.test=127.0.0.1", "git.test=127.0.0.1", "nogit.test=127.0.0.1"],
			},
		},
	};
}

/** The fixture's client key and a known_hosts line for both made-up names (the sandbox hides ~/.ssh). */
async function sshFiles(folder: string): Promise<{ key: string; knownHosts: string }> {
	const option = (name: string) =>
		(sshd.sshd?.sshOptions ?? []).find((entry: string) => entry.startsWith(`${name}=`))?.slice(name.length + 1) ?? "";
	const key = join(folder, "client_key");
	await writeFile(key, await readFile(option("IdentityFile")), { mode: 0o600 });
	const hostKey = (await readFile(option("UserKnownHostsFile"), "utf8")).trim().split(" ").slice(1).join(" ");
	const knownHosts = join(folder, "known_hosts");
	await writeFile(knownHosts, ["git.test", "nogit.test"].map((name) => `[${name}]:${sshdPort} ${hostKey}\n`).join(""));
	return { key, knownHosts };
}

async function sandboxed(user: TestUser, command: (ssh: { key: string; knownHosts: string }) => string) {
	ensureBuiltCli();
	const outside = await mkdtemp(join("/var/tmp", "toolbelt-network-tools-run-"));
	try {
		const home = join(outside, "home");
		const project = join(outside, "project");
		for (const directory of [join(home, ".toolbelt"), project]) await mkdir(directory, { recursive: true });
		await writeFile(join(home, ".toolbelt", "settings.json"), JSON.stringify(settings()));
		const ssh = await sshFiles(outside);
		await handOver(outside, user);
		const run = await cli.run(["tool", "bash", JSON.stringify({ command: command(ssh) }), "--sandbox", "--json"], {
			cwd: project,
			user,
			env: cleanEnv({ HOME: home }),
		});
		return { ...run, output: run.stdout + run.stderr };
	} finally {
		cli.killAll();
		await rm(outside, { recursive: true, force: true });
	}
}

describe.skipIf(unavailable !== undefined)("npm and git over SSH through the sandbox's network policy", () => {
	describe.each(testUsers())("as %s", (user) => {
		it("npm install and git clone work from allowed hosts and fail naming the host otherwise", async ({ skip }) => {
			if (!sshd.sshd) skip(sshd.skipReason);
			const npm = (host: string) =>
				`npm install --no-audit --no-fund --no-update-notifier --fetch-retries=0 --cache "$PWD/.npm-cache" --logs-dir "$PWD/.npm-logs" --registry http://${host}:${registryPort}/ tiny-pkg`;
			const clone = (host: string, into: string, ssh: { key: string; knownHosts: string }) =>
				`GIT_SSH_COMMAND="$GIT_SSH_COMMAND -i ${ssh.key} -o IdentitiesOnly=yes -o UserKnownHostsFile=${ssh.knownHosts} -o StrictHostKeyChecking=yes -o BatchMode=yes" git clone -q ssh://root@${host}:${sshdPort}${repositories}/repo.git ${into}`;
			const run = await sandboxed(user, (ssh) =>
				[
					`mkdir allowed blocked && cd allowed && echo '{}' > package.json && ${npm("registry.test")}; echo "npm-allowed=$?"`,
					`node -e 'console.log(require("tiny-pkg"))'`,
					`cd ../blocked && echo '{}' > package.json && ${npm("blocked.test")}; echo "npm-blocked=$?"; cd ..`,
					`${clone("git.test", "cloned", ssh)}; echo "git-allowed=$?"; cat cloned/README`,
					`${clone("nogit.test", "refused", ssh)}; echo "git-blocked=$?"`,
				].join("; "),
			);
			expect(run.output).toContain("npm-allowed=0");
			expect(run.output).toContain("TINY-PACKAGE-LOADED");
			expect(registryRequests).toContain(`registry.test:${registryPort} /tiny-pkg`);
			expect(run.output).toMatch(/npm-blocked=[1-9]/);
			expect(run.output).toContain(`blocked.test:${registryPort} is not in sandbox.network.allow`);
			expect(registryRequests.filter((request) => request.startsWith("blocked.test"))).toEqual([]);
			expect(run.output).toContain("git-allowed=0");
			expect(run.output).toContain("CLONED-OVER-SSH");
			expect(run.output).toMatch(/git-blocked=[1-9]/);
			expect(run.output).toContain(`nogit.test:${sshdPort} is not in sandbox.network.allow`);
			// The call's audit, in its result's details (what the session record and PostToolUse hooks get).
			const network = (JSON.parse(run.stdout) as { details: { network: ShellNetworkConnection[] } }).details.network;
			const registryUse = network.filter((entry) => entry.host === "registry.test");
			expect(registryUse.length).toBeGreaterThan(0);
			for (const entry of registryUse)
				expect(entry).toMatchObject({ allowed: true, rule: "registry.test", via: "http" });
			expect(registryUse.some((entry) => entry.bytesReceived > 0)).toBe(true);
			expect(network).toContainEqual(expect.objectContaining({ host: "git.test", port: sshdPort, allowed: true }));
			for (const host of ["blocked.test", "nogit.test"]) {
				expect(network).toContainEqual(
					expect.objectContaining({ host, allowed: false, reason: expect.stringContaining("sandbox.network.allow") }),
				);
			}
		});
	});
});
