// Red-team tests of the bubblewrap sandbox, driving the built CLI as a user would:
// `toolbelt tool bash '{"command": …}' --sandbox` in a temp repository, then real git on the host.
// Each attack plants something that would run later outside the sandbox, or reaches the host.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CliProcesses, cleanEnv, ensureBuiltCli } from "../cli/helpers/cli-binary.js";
import { sandboxUnavailableReason } from "../helpers/prerequisites.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { gitIdentity } from "./git-identity.js";

const unavailable = await sandboxUnavailableReason();
// Several CLI starts per test, each a few seconds on a loaded machine.
vi.setConfig({ testTimeout: 120_000 });

const tempDir = useTempDir();
const cli = new CliProcesses();
// The sandbox's /tmp is an empty tmpfs, so whatever lives in the host's /tmp is invisible inside
// anyway. A home directory and sockets are put outside /tmp, where a real ~ and docker.sock live.
let outsideTmp = "";
beforeEach(async () => {
	outsideTmp = await mkdtemp(join("/var/tmp", "toolbelt-sandbox-test-"));
});
afterEach(async () => {
	cli.killAll();
	await rm(outsideTmp, { recursive: true, force: true });
});

const identity = gitIdentity;

function homeDir(): string {
	return join(outsideTmp, "home");
}

/** Real git on the host, as the user runs it after the session. */
function hostGit(cwd: string, args: string[]): string {
	return execFileSync("git", args, {
		cwd,
		env: cleanEnv({ HOME: homeDir(), ...identity }),
		encoding: "utf8",
		stdio: ["ignore", "pipe", "pipe"],
	});
}

async function gitRepository(path: string): Promise<string> {
	await mkdir(path, { recursive: true });
	await mkdir(homeDir(), { recursive: true });
	hostGit(path, ["init", "-q"]);
	await writeFile(join(path, "file.txt"), "content\n");
	hostGit(path, ["add", "-A"]);
	hostGit(path, ["commit", "-q", "-m", "initial"]);
	return path;
}

/** Runs one bash command through the built CLI with `--sandbox`. */
function sandboxed(cwd: string, command: string, extraEnv: Record<string, string> = {}, flags: string[] = []) {
	return cli.run(["tool", "bash", JSON.stringify({ command }), "--sandbox", ...flags], {
		cwd,
		env: cleanEnv({ HOME: homeDir(), ...identity, ...extraEnv }),
	});
}

/** A shell command that, run by git as a hook or fsmonitor, leaves `marker` behind. */
const plant = (marker: string) => `touch '${marker}'; false`;

describe.skipIf(unavailable !== undefined)("the sandbox against code planted for later", () => {
	beforeEach(() => {
		ensureBuiltCli();
	});

	it("mv .git, then a new repository with core.fsmonitor: the user's git status runs nothing", async () => {
		const repo = await gitRepository(join(tempDir(), "repo"));
		const marker = join(tempDir(), "fsmonitor-ran");
		const run = await sandboxed(
			repo,
			`mv .git .git-moved && git init -q && git config core.fsmonitor "${plant(marker)}" && git add -A`,
		);
		hostGit(repo, ["status", "--porcelain"]);
		expect(existsSync(marker)).toBe(false);
		expect(run.code).not.toBe(0);
		expect(existsSync(join(repo, ".git-moved"))).toBe(false);
		expect(() => hostGit(repo, ["config", "--get", "core.fsmonitor"])).toThrow();
		expect(hostGit(repo, ["log", "--format=%s"]).trim()).toBe("initial");
	});

	it("git init in a folder without .git: no repository appears, nothing is left behind", async () => {
		const folder = join(tempDir(), "plain");
		await mkdir(folder);
		await mkdir(homeDir(), { recursive: true });
		await writeFile(join(folder, "notes.txt"), "hello\n");
		const marker = join(tempDir(), "fsmonitor-ran");
		const run = await sandboxed(
			folder,
			`git init -q && git config core.fsmonitor "${plant(marker)}" && git add -A && echo planted`,
		);
		expect(run.stdout).not.toContain("planted");
		expect(existsSync(join(folder, ".git"))).toBe(false);
		expect(readdirSync(folder)).toEqual(["notes.txt"]);
		expect(() => hostGit(folder, ["status"])).toThrow(/not a git repository/);
		expect(existsSync(marker)).toBe(false);
	});

	it("writing git config inside .git (the repository's and a submodule's): nothing runs on the host", async () => {
		const origin = await gitRepository(join(tempDir(), "origin"));
		const repo = await gitRepository(join(tempDir(), "repo"));
		hostGit(repo, ["-c", "protocol.file.allow=always", "submodule", "add", "-q", origin, "lib"]);
		hostGit(repo, ["commit", "-q", "-m", "submodule"]);
		const configs = [join(repo, ".git", "config"), join(repo, ".git", "modules", "lib", "config")];
		const before = await Promise.all(configs.map((file) => readFile(file, "utf8")));
		const marker = join(tempDir(), "fsmonitor-ran");
		for (const command of [
			`git -C lib config core.fsmonitor "${plant(marker)}"`,
			`printf '[core]\\n\\tfsmonitor = ${plant(marker)}\\n' >> .git/modules/lib/config`,
			`printf '[core]\\n\\tfsmonitor = ${plant(marker)}\\n' >> .git/config`,
			`git config core.fsmonitor "${plant(marker)}"`,
		]) {
			const run = await sandboxed(repo, command);
			hostGit(repo, ["status", "--porcelain"]);
			hostGit(join(repo, "lib"), ["status", "--porcelain"]);
			expect(existsSync(marker), command).toBe(false);
			expect(run.code, command).not.toBe(0);
		}
		expect(await Promise.all(configs.map((file) => readFile(file, "utf8")))).toEqual(before);
	});

	it("a hook planted where git looks for hooks (a missing .git/hooks, husky's folder): the user's commit runs none", async () => {
		const repo = await gitRepository(join(tempDir(), "repo"));
		await rm(join(repo, ".git", "hooks"), { recursive: true, force: true });
		const marker = join(tempDir(), "hook-ran");
		const hook = `printf '#!/bin/sh\\ntouch ${marker}\\n'`;
		const run = await sandboxed(
			repo,
			`mkdir -p .git/hooks && ${hook} > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`,
		);
		hostGit(repo, ["commit", "-q", "--allow-empty", "-m", "after"]);
		expect(existsSync(marker)).toBe(false);
		expect(run.code).not.toBe(0);

		const husky = await gitRepository(join(tempDir(), "husky"));
		hostGit(husky, ["config", "core.hooksPath", ".husky"]);
		const huskyRun = await sandboxed(
			husky,
			`mkdir -p .husky && ${hook} > .husky/pre-commit && chmod +x .husky/pre-commit`,
		);
		hostGit(husky, ["commit", "-q", "--allow-empty", "-m", "after"]);
		expect(existsSync(marker)).toBe(false);
		expect(huskyRun.code).not.toBe(0);
		expect(existsSync(join(husky, ".husky"))).toBe(false);
	});

	it("editor and direnv files cannot be planted either", async () => {
		const repo = await gitRepository(join(tempDir(), "repo"));
		await mkdir(join(repo, ".vscode"));
		await writeFile(join(repo, ".vscode", "settings.json"), "{}\n");
		const run = await sandboxed(
			repo,
			"echo '{\"tasks\":[]}' > .vscode/tasks.json; echo 'touch x' > .envrc; mkdir .idea; mkdir .devcontainer; " +
				"rm -rf .vscode; ls -A",
			{},
			// These are protected paths to the permission rules too: allow the writes, so the sandbox is what stops them.
			// (mkdir and rm name their folders as written files to the shell policy.)
			[
				"--allow",
				"edit(.envrc)",
				"--allow",
				"edit(.vscode/**)",
				"--allow",
				"edit(.vscode)",
				"--allow",
				"edit(.idea)",
				"--allow",
				"edit(.devcontainer)",
			],
		);
		expect(run.code).toBe(0);
		expect(readdirSync(join(repo, ".vscode"))).toEqual(["settings.json"]);
		expect(readdirSync(repo).sort()).toEqual([".git", ".vscode", "file.txt"]);
	});

	it("concurrent sandboxed calls keep each other's protection: one ending does not unprotect the other", async () => {
		const folder = join(tempDir(), "plain");
		await mkdir(folder);
		await mkdir(homeDir(), { recursive: true });
		// The long call waits for a file only the test creates, after the short call has ended.
		const long = cli.start(
			[
				"tool",
				"bash",
				JSON.stringify({
					command:
						"for i in $(seq 400); do [ -e go ] && break; sleep 0.05; done; [ -e go ] || exit 9; git init -q && echo planted",
				}),
				"--sandbox",
			],
			{ cwd: folder, env: cleanEnv({ HOME: homeDir(), ...identity }) },
		);
		const short = await sandboxed(folder, "true");
		expect(short.code).toBe(0);
		await writeFile(join(folder, "go"), "");
		const ended = await long.done;
		expect(ended.stdout + ended.stderr).not.toContain("planted");
		expect(ended.stdout + ended.stderr).not.toContain("exit code 9");
		expect(readdirSync(folder)).toEqual(["go"]);
	});
});

describe.skipIf(unavailable !== undefined)("the sandbox against reaching the host", () => {
	beforeEach(() => {
		ensureBuiltCli();
	});

	it("reaches no host Unix socket with the network off (in the workspace, outside /tmp); socketpair still works", async () => {
		const repo = await gitRepository(join(tempDir(), "repo"));
		const sockets = [join(repo, "agent.sock"), join(outsideTmp, "host.sock")];
		let connections = 0;
		const servers: Server[] = [];
		for (const path of sockets) {
			const server = createServer((socket) => {
				connections++;
				socket.end("hello\n");
			});
			await new Promise<void>((resolve) => server.listen(path, resolve));
			servers.push(server);
		}
		try {
			const connect = sockets
				.map(
					(path) =>
						`require("net").connect(${JSON.stringify(path)}).on("connect", () => console.log("connected")).on("error", (error) => console.log(error.code))`,
				)
				.join(";");
			const run = await sandboxed(repo, `'${process.execPath}' -e '${connect}'`);
			expect(run.stdout).not.toContain("connected");
			expect(run.stdout).toContain("EPERM");
			expect(connections).toBe(0);
			// Node starts a child with its stdio on socketpairs: anonymous Unix sockets stay allowed.
			const pair = await sandboxed(
				repo,
				`'${process.execPath}' -e 'console.log(require("child_process").execFileSync("echo", ["pair", "ok"]).toString().trim())'`,
			);
			expect(pair.stdout).toContain("pair ok");
		} finally {
			for (const server of servers) await new Promise((resolve) => server.close(() => resolve(undefined)));
		}
	});

	it("hides credentials under the home directory; sandbox.exposeCredentials shows a named one", async () => {
		const repo = await gitRepository(join(tempDir(), "repo"));
		const home = homeDir();
		await mkdir(join(home, ".ssh"), { recursive: true });
		await writeFile(join(home, ".ssh", "id_ed25519"), "SSH-SECRET\n");
		await chmod(join(home, ".ssh", "id_ed25519"), 0o600);
		await writeFile(join(home, ".netrc"), "machine x login u password NETRC-SECRET\n");
		await mkdir(join(home, ".aws"));
		await writeFile(join(home, ".aws", "credentials"), "AWS-SECRET\n");
		const read = "cat ~/.ssh/id_*; cat ~/.netrc; cat ~/.aws/credentials; ls -A ~/.ssh; echo done";
		const hidden = await sandboxed(repo, read);
		expect(hidden.stdout).toContain("done");
		for (const secret of ["SSH-SECRET", "NETRC-SECRET", "AWS-SECRET", "id_ed25519"]) {
			expect(hidden.stdout + hidden.stderr).not.toContain(secret);
		}
		await mkdir(join(home, ".toolbelt"), { recursive: true });
		await writeFile(
			join(home, ".toolbelt", "settings.json"),
			JSON.stringify({ sandbox: { exposeCredentials: ["~/.aws"] } }),
		);
		const exposed = await sandboxed(repo, read);
		expect(exposed.stdout).toContain("AWS-SECRET");
		expect(exposed.stdout + exposed.stderr).not.toContain("SSH-SECRET");
	});
});
