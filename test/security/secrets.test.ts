// Red-team tests of what secrets a command can reach, driving the built CLI as a user starts it:
// provider keys and tokens in the environment (sandboxed or not, in a terminal too), and, in the
// sandbox, toolbelt's own state and the usual credential stores in the home directory.
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CliProcesses, cleanEnv, ensureBuiltCli } from "../cli/helpers/cli-binary.js";
import { sandboxUnavailableReason } from "../helpers/prerequisites.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { handOver, type TestUser, testUsers } from "../helpers/test-users.js";

const sandboxUnavailable = await sandboxUnavailableReason();

// Several CLI starts per test, each a few seconds on a loaded machine.
vi.setConfig({ testTimeout: 120_000 });

const tempDir = useTempDir();
const cli = new CliProcesses();
// Outside /tmp, as a real home is: the sandbox's /tmp is empty whatever the host's holds.
let outside = "";
beforeEach(async () => {
	outside = await mkdtemp(join("/var/tmp", "toolbelt-secrets-"));
	ensureBuiltCli();
});
afterEach(async () => {
	cli.killAll();
	await rm(outside, { recursive: true, force: true });
});

const home = () => join(outside, "home");

const secrets = {
	OPENAI_API_KEY: "sk-OPENAI-SECRET",
	ANTHROPIC_API_KEY: "sk-ant-ANTHROPIC-SECRET",
	GITHUB_TOKEN: "ghp_GITHUB-SECRET",
	AWS_SECRET_ACCESS_KEY: "AWS-SECRET",
	AWS_SESSION_TOKEN: "AWS-SESSION-SECRET",
	NPM_TOKEN: "NPM-SECRET",
	PGPASSWORD: "PG-SECRET",
};

async function workspace(): Promise<string> {
	const folder = join(tempDir(), "project");
	await mkdir(folder, { recursive: true });
	await mkdir(home(), { recursive: true });
	return folder;
}

/** Runs one tool call through the built CLI as `user`, with the secrets in the CLI's own environment. */
async function tool(user: TestUser, cwd: string, name: string, args: object, flags: string[] = [], env = {}) {
	await handOver(tempDir(), user);
	await handOver(outside, user);
	return cli.run(["tool", name, JSON.stringify(args), ...flags], {
		cwd,
		user,
		env: cleanEnv({ HOME: home(), ...secrets, ...env }),
	});
}

const printAll = `printenv ${Object.keys(secrets).join(" ")}; echo done`;

describe.each(testUsers())("as %s", (user) => {
	describe("secret-named variables", () => {
		const modes = [
			{ name: "a command", flags: [] as string[], extra: {} },
			{ name: "a command in a terminal", flags: [] as string[], extra: { tty: true } },
			...(sandboxUnavailable === undefined ? [{ name: "a sandboxed command", flags: ["--sandbox"], extra: {} }] : []),
		];
		for (const mode of modes) {
			it(`${mode.name} gets none of them`, async () => {
				const folder = await workspace();
				const run = await tool(user, folder, "bash", { command: printAll, ...mode.extra }, mode.flags);
				expect(run.stdout).toContain("done");
				for (const value of Object.values(secrets)) expect(run.stdout + run.stderr).not.toContain(value);
			});
		}

		it("shell.passEnvironment in the user's settings and --pass-env give the named ones, and no other", async () => {
			const folder = await workspace();
			await mkdir(join(home(), ".toolbelt"), { recursive: true });
			await writeFile(
				join(home(), ".toolbelt", "settings.json"),
				JSON.stringify({ shell: { passEnvironment: ["NPM_TOKEN"] } }),
			);
			const run = await tool(user, folder, "bash", { command: printAll }, ["--pass-env", "OPENAI_API_KEY"]);
			expect(run.stdout).toContain(secrets.NPM_TOKEN);
			expect(run.stdout).toContain(secrets.OPENAI_API_KEY);
			expect(run.stdout).not.toContain(secrets.GITHUB_TOKEN);
			expect(run.stdout).not.toContain(secrets.AWS_SECRET_ACCESS_KEY);
		});

		it("an untrusted repository's shell.passEnvironment passes nothing", async () => {
			const folder = await workspace();
			await mkdir(join(folder, ".toolbelt"), { recursive: true });
			await writeFile(
				join(folder, ".toolbelt", "settings.json"),
				JSON.stringify({ shell: { passEnvironment: Object.keys(secrets) } }),
			);
			const run = await tool(user, folder, "bash", { command: printAll });
			expect(run.stdout).toContain("done");
			for (const value of Object.values(secrets)) expect(run.stdout).not.toContain(value);
		});
	});

	describe("credentials in the values of innocently named variables", () => {
		const inValues = {
			DATABASE_URL: "postgres://app:PG-URL-SECRET@db.internal:5432/app",
			REDIS_URL: "redis://:REDIS-URL-SECRET@cache.internal:6379/0",
			SENTRY_DSN: "https://DSN-SECRET-KEY@o1.ingest.example.io/42",
			UPSTREAM: "https://x-access-token:GIT-URL-SECRET@github.com/org/repo.git",
			DEPLOY_HELPER: "ghp_TOKENSHAPEDSECRET0123456789abcdef",
			// Credentials set under a name inside the value: OTLP exporters' headers, git's extra header, JVM options.
			OTEL_EXPORTER_OTLP_HEADERS: "api-key=OTLP-HEADER-SECRET,x-team=prod",
			GIT_CONFIG_VALUE_0: "AUTHORIZATION: basic GIT-HEADER-SECRET",
			JAVA_TOOL_OPTIONS: "-Djavax.net.ssl.trustStorePassword=JAVA-OPTION-SECRET",
		};
		const printValues = `printenv ${Object.keys(inValues).join(" ")}; echo done`;
		const modes = [
			{ name: "a command", flags: [] as string[] },
			...(sandboxUnavailable === undefined ? [{ name: "a sandboxed command", flags: ["--sandbox"] }] : []),
		];
		for (const mode of modes) {
			it(`${mode.name} gets the hosts without the credentials`, async () => {
				const folder = await workspace();
				const run = await tool(user, folder, "bash", { command: printValues }, mode.flags, inValues);
				expect(run.stdout).toContain("done");
				for (const secret of [
					"PG-URL-SECRET",
					"REDIS-URL-SECRET",
					"DSN-SECRET-KEY",
					"GIT-URL-SECRET",
					"TOKENSHAPED",
					"OTLP-HEADER-SECRET",
					"GIT-HEADER-SECRET",
					"JAVA-OPTION-SECRET",
				])
					expect(run.stdout + run.stderr).not.toContain(secret);
				expect(run.stdout).toContain("db.internal:5432/app");
				expect(run.stdout).toContain("github.com/org/repo.git");
			});
		}

		it("--pass-env gives a named one as it is", async () => {
			const folder = await workspace();
			const run = await tool(user, folder, "bash", { command: printValues }, ["--pass-env", "DATABASE_URL"], inValues);
			expect(run.stdout).toContain(inValues.DATABASE_URL);
			expect(run.stdout).not.toContain("REDIS-URL-SECRET");
		});
	});

	describe.skipIf(sandboxUnavailable !== undefined)("the sandbox hides", () => {
		it("toolbelt's checkpoints of another workspace (in ~/.local/state and under $XDG_STATE_HOME)", async () => {
			for (const state of [undefined, join(outside, "state")]) {
				const env = state ? { XDG_STATE_HOME: state } : {};
				const other = join(tempDir(), "other");
				await mkdir(other, { recursive: true });
				await writeFile(join(other, "notes.txt"), "BEFORE-IMAGE-SECRET\n");
				const folder = await workspace();
				// The other workspace's write keeps the file's before-image in the checkpoint store.
				const write = await tool(user, other, "write", { path: "notes.txt", content: "after\n" }, [], env);
				expect(write.code).toBe(0);
				const store = join(state ?? join(home(), ".local", "state"), "toolbelt", "checkpoints");
				const kept = await Promise.all(
					(await readdir(store)).map(async (key) => {
						const blobs = join(store, key, "blobs");
						return Promise.all((await readdir(blobs)).map((blob) => readFile(join(blobs, blob), "utf8")));
					}),
				);
				expect(kept.flat().join("")).toContain("BEFORE-IMAGE-SECRET");
				const read = await tool(
					user,
					folder,
					"bash",
					{ command: `cat ${store}/*/blobs/*; grep -rs BEFORE-IMAGE ${store}; echo done` },
					["--sandbox"],
					env,
				);
				expect(read.stdout).toContain("done");
				expect(read.stdout + read.stderr).not.toContain("BEFORE-IMAGE-SECRET");
				await rm(other, { recursive: true, force: true });
			}
		});

		it("git's XDG credentials, database passwords, shell histories, registry tokens", async () => {
			const folder = await workspace();
			const config = join(outside, "config");
			const files: Record<string, string> = {
				[join(home(), ".config", "git", "credentials")]: "https://u:GIT-XDG-SECRET@example.invalid\n",
				[join(config, "git", "credentials")]: "https://u:GIT-CONFIG-HOME-SECRET@example.invalid\n",
				[join(home(), ".pgpass")]: "*:*:*:u:PGPASS-SECRET\n",
				[join(home(), ".my.cnf")]: "[client]\npassword=MYCNF-SECRET\n",
				[join(home(), ".bash_history")]: "export TOKEN=HISTORY-SECRET\n",
				[join(home(), ".python_history")]: "login('PYTHON-HISTORY-SECRET')\n",
				[join(home(), ".yarnrc.yml")]: "npmAuthToken: YARN-SECRET\n",
				[join(home(), ".config", "pip", "pip.conf")]: "[global]\nindex-url = https://u:PIP-SECRET@example.invalid\n",
			};
			for (const [path, content] of Object.entries(files)) {
				await mkdir(join(path, ".."), { recursive: true });
				await writeFile(path, content, { mode: 0o600 });
			}
			const paths = Object.keys(files).join(" ");
			const run = await tool(user, folder, "bash", { command: `cat ${paths}; echo done` }, ["--sandbox"], {
				XDG_CONFIG_HOME: config,
			});
			expect(run.stdout).toContain("done");
			for (const secret of Object.values(files).map((content) => /[A-Z-]+-SECRET/.exec(content)?.[0] ?? "")) {
				expect(run.stdout + run.stderr, secret).not.toContain(secret);
			}
		});
	});
});
