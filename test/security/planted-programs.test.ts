// Red team: a sandboxed command plants programs toolbelt itself runs outside the sandbox — `perl`
// (the hook launcher), `bwrap`, `unshare`, `cat` (the output relay), `wc` (a large output's line
// count), `ps`, and the remote workspaces' clients `ssh` and `docker` (which run with the user's
// keys) — in every PATH folder it can write: the project's `node_modules/.bin`, a relative
// `bin` and the empty entry (the current folder). Each plant notes that it ran in a file outside the
// sandbox's reach, then runs the real program. The next call and hook in the same process, and
// fresh toolbelt processes with and without the sandbox or opening a remote workspace from that
// project, must not run a plant, and must still work.
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CliProcesses, cleanEnv, ensureBuiltCli, sharedCacheHome } from "../cli/helpers/cli-binary.js";
import { sandboxUnavailableReason } from "../helpers/prerequisites.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { handOver, type TestUser, testUsers, userPrefix } from "../helpers/test-users.js";
import { textOf } from "../mcp/helpers.js";

const unavailable = await sandboxUnavailableReason();

// Several CLI starts per test, each a few seconds on a loaded machine.
vi.setConfig({ testTimeout: 120_000 });

const tempDir = useTempDir();
const cli = new CliProcesses();
// The marker lives outside the sandbox's writable folders (its /tmp is a tmpfs of its own).
let outside = "";
beforeEach(async () => {
	outside = await mkdtemp(join("/var/tmp", "toolbelt-planted-"));
});
afterEach(async () => {
	cli.killAll();
	await rm(outside, { recursive: true, force: true });
});

const PLANTED = ["perl", "bwrap", "unshare", "cat", "wc", "ps", "ssh", "docker"];

/** The real program of that name, for the plant to hand over to. */
function realProgram(name: string): string {
	const systemFolders = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"];
	return systemFolders.map((folder) => join(folder, name)).find((path) => existsSync(path)) ?? `/bin/${name}`;
}

/** A shell command that plants every program in `node_modules/.bin`, `bin` and the project folder. */
function plantCommand(marker: string): string {
	const lines: string[] = ["mkdir -p node_modules/.bin bin"];
	for (const name of PLANTED) {
		const script = `#!/bin/sh\nprintf '%s\\n' "$0" >> '${marker}' 2>/dev/null\nexec '${realProgram(name)}' "$@"\n`;
		for (const folder of ["node_modules/.bin", "bin", "."]) {
			lines.push(`printf '%s' '${script.replaceAll("'", `'\\''`)}' > ${folder}/${name}`, `chmod 755 ${folder}/${name}`);
		}
	}
	return lines.join(" && ");
}

interface Setup {
	project: string;
	home: string;
	marker: string;
	env: Record<string, string>;
}

/** A project, a home whose settings run a PreToolUse hook on bash, and a PATH that starts with the writable folders. */
async function setUp(user: TestUser): Promise<Setup> {
	const project = join(tempDir(), "project");
	const home = join(outside, "home");
	await mkdir(project, { recursive: true });
	await mkdir(join(home, ".toolbelt"), { recursive: true });
	// Builtins only: the hook's own look-ups are the hook's business, not toolbelt's.
	const hook = join(home, "hook.sh");
	await writeFile(hook, '#!/bin/sh\nwhile IFS= read -r line; do :; done\nprintf x > "$PWD/hook-ran"\nexit 0\n', {
		mode: 0o755,
	});
	const settings = { hooks: { PreToolUse: [{ matcher: "bash", hooks: [{ type: "command", command: hook }] }] } };
	await writeFile(join(home, ".toolbelt", "settings.json"), JSON.stringify(settings));
	await handOver(tempDir(), user);
	await handOver(outside, user);
	const path = ["bin", "", join(project, "node_modules/.bin"), process.env.PATH ?? "/usr/bin:/bin"].join(":");
	return { project, home, marker: join(outside, "planted-ran"), env: cleanEnv({ HOME: home, PATH: path }) };
}

function plantsThatRan(setup: Setup): string {
	return existsSync(setup.marker) ? readFileSync(setup.marker, "utf8") : "";
}

async function mcpSession(user: TestUser, setup: Setup): Promise<Client> {
	const [file = process.execPath, ...prefix] = [...userPrefix(user), process.execPath];
	const transport = new StdioClientTransport({
		command: file,
		args: [...prefix, ensureBuiltCli(), "mcp", "--sandbox", "--cwd", setup.project],
		cwd: setup.project,
		// The shared cache is the user's own: the other user's folder is private to them.
		env: { ...setup.env, XDG_CACHE_HOME: sharedCacheHome(user) },
		stderr: "pipe",
	});
	let stderr = "";
	transport.stderr?.on("data", (chunk: Buffer) => {
		stderr += chunk.toString();
	});
	const client = new Client({ name: "red-team", version: "1" });
	await client.connect(transport).catch((error: unknown) => {
		throw new Error(`the MCP server did not start: ${String(error)}\n${stderr}`);
	});
	return client;
}

describe.skipIf(unavailable !== undefined)("programs planted by a sandboxed command", () => {
	beforeEach(() => {
		ensureBuiltCli();
	});

	it.each(testUsers())("as %s: do not run at the next call and hook of the same process", async (user) => {
		const setup = await setUp(user);
		const client = await mcpSession(user, setup);
		try {
			const planted = await client.callTool({ name: "bash", arguments: { command: plantCommand(setup.marker) } });
			expect(planted.isError, textOf(planted)).toBeFalsy();
			expect(existsSync(join(setup.project, "node_modules/.bin/perl"))).toBe(true);
			// Inside the sandbox the plants may run (they cannot write the marker): that is the sandbox's job.
			await rm(setup.marker, { force: true });
			// The next call: a hook (unshare), the relay (cat), an output of 11 MB whose lines `wc` counts.
			const next = await client.callTool({ name: "bash", arguments: { command: "seq 1 1500000" } });
			expect(next.isError, textOf(next)).toBeFalsy();
			expect(textOf(next)).toContain("1500000");
			expect(existsSync(join(setup.project, "hook-ran"))).toBe(true);
			expect(plantsThatRan(setup)).toBe("");
		} finally {
			await client.close();
		}
	});

	/** A sandboxed call of its own process plants the programs; the marker starts empty. */
	async function plantedBySandboxedCall(user: TestUser): Promise<Setup> {
		const setup = await setUp(user);
		const planted = await cli.run(
			["tool", "bash", JSON.stringify({ command: plantCommand(setup.marker) }), "--sandbox"],
			{ cwd: setup.project, user, env: setup.env },
		);
		expect(planted.code, planted.stderr).toBe(0);
		expect(existsSync(join(setup.project, "node_modules/.bin/bwrap"))).toBe(true);
		await rm(setup.marker, { force: true });
		await rm(join(setup.project, "hook-ran"), { force: true });
		return setup;
	}

	it.each(testUsers())("as %s: do not run in a fresh process with the sandbox (bwrap, unshare, cat)", async (user) => {
		const setup = await plantedBySandboxedCall(user);
		const sandboxed = await cli.run(["tool", "bash", JSON.stringify({ command: "echo fresh" }), "--sandbox"], {
			cwd: setup.project,
			user,
			env: setup.env,
		});
		expect(sandboxed.stdout).toContain("fresh");
		expect(existsSync(join(setup.project, "hook-ran"))).toBe(true);
		expect(plantsThatRan(setup)).toBe("");
	});

	it.each(testUsers())(
		"as %s: do not run in a fresh process without the sandbox (perl, unshare, cat)",
		async (user) => {
			const setup = await plantedBySandboxedCall(user);
			// Without the sandbox, hooks go through the Perl launcher and its PID namespace.
			const plain = await cli.run(["tool", "bash", JSON.stringify({ command: "echo plain" })], {
				cwd: setup.project,
				user,
				env: setup.env,
			});
			expect(plain.stdout).toContain("plain");
			expect(existsSync(join(setup.project, "hook-ran"))).toBe(true);
			expect(plantsThatRan(setup)).toBe("");
		},
	);

	it.each(testUsers())(
		"as %s: do not run when a fresh process opens a remote workspace (ssh, docker)",
		async (user) => {
			const setup = await plantedBySandboxedCall(user);
			// Nothing listens on port 1: the real ssh says so, and the call reports it.
			const ssh = await cli.run(["tool", "ls", "{}", "--workspace", "ssh://127.0.0.1:1/srv"], {
				cwd: setup.project,
				user,
				env: setup.env,
			});
			expect(`${ssh.stdout}${ssh.stderr}`).toMatch(/Cannot reach the SSH workspace ssh:\/\/127\.0\.0\.1:1 .*refused/);
			// Whatever the daemon says (no such container, no access to its socket), the real client says it.
			const docker = await cli.run(["tool", "ls", "{}", "--workspace", "docker://toolbelt-no-such-container/srv"], {
				cwd: setup.project,
				user,
				env: setup.env,
			});
			expect(`${docker.stdout}${docker.stderr}`).toContain("docker://toolbelt-no-such-container");
			expect(plantsThatRan(setup)).toBe("");
		},
	);

	it("a workspace at / still runs commands (the system folders stay usable below a workspace root), and a sandbox writable at / is refused", async () => {
		const env = cleanEnv({ HOME: join(outside, "home"), XDG_STATE_HOME: join(outside, "state") });
		const plain = await cli.run(["tool", "bash", JSON.stringify({ command: "seq 1 3" }), "--cwd", "/"], { env });
		expect(plain.stdout).toContain("1\n2\n3");
		const sandboxed = await cli.run(
			["tool", "bash", JSON.stringify({ command: "seq 1 3" }), "--cwd", "/", "--sandbox"],
			{
				env,
			},
		);
		expect(sandboxed.code).not.toBe(0);
		expect(sandboxed.stdout).not.toContain("1\n2\n3");
		expect(sandboxed.stderr).toMatch(/bubblewrap \(bwrap\) is not installed where toolbelt may take programs from/);
	});
});
