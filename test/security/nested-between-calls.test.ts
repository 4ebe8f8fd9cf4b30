// Red-team tests for the nested-repository watch across calls of one session: the check before a
// sandboxed call looks only at folders with change events, so a repository the user makes between
// two calls must still be found (kept read-only, not renamed away), and a folder a command swaps
// for another of the same name must be walked anew. One `toolbelt mcp --sandbox` per user serves
// every case (the watch lives as long as the server), as root and as an unprivileged user.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { cleanEnv, ensureBuiltCli, sharedCacheHome } from "../cli/helpers/cli-binary.js";
import { sandboxUnavailableReason } from "../helpers/prerequisites.js";
import { handOver, type TestUser, testUsers, userPrefix } from "../helpers/test-users.js";
import { textOf } from "../mcp/helpers.js";
import { gitIdentity } from "./git-identity.js";

const unavailable = await sandboxUnavailableReason();
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

/** A command that writes `content` to `path` by a program the shell policy cannot read, so the sandbox is what must stop it. */
function plantCommand(path: string, content: string): string {
	const script = "require('fs').appendFileSync(process.argv[1],Buffer.from(process.argv[2],'base64'))";
	return `node -e "${script}" ${path} ${Buffer.from(content).toString("base64")}`;
}

describe.skipIf(unavailable !== undefined).each(testUsers())(
	"nested repositories between calls, as %s",
	(user: TestUser) => {
		let base = "";
		let client: Client | undefined;
		let stderr = "";
		const repo = () => join(base, "repo");
		const home = () => join(base, "home");
		const marker = (name: string) => join(base, `ran-on-host-${name}`);
		const env = () => cleanEnv({ HOME: home(), XDG_CACHE_HOME: sharedCacheHome(user), ...gitIdentity });

		/** A program on the host, as the user runs it; throws when it fails, unless `mayFail`. */
		function host(cwd: string, program: string, args: string[], mayFail = false) {
			const [file, ...prefix] = [...userPrefix(user), program];
			const result = spawnSync(file ?? program, [...prefix, ...args], {
				cwd,
				env: env(),
				encoding: "utf8",
				timeout: 60_000,
			});
			if (result.status !== 0 && !mayFail) throw new Error(`${program} ${args.join(" ")}: ${result.stderr}`);
			return result;
		}

		async function sandboxed(command: string): Promise<string> {
			const result = await (client as Client)
				.callTool({ name: "bash", arguments: { command } })
				.catch((error: unknown) => {
					throw new Error(`${String(error)}; the server's stderr:\n${stderr}`);
				});
			return textOf(result);
		}

		beforeAll(async () => {
			// Outside /tmp: the sandbox's /tmp is its own, so only a process on the host can make a marker here.
			base = await mkdtemp(join("/var/tmp", "toolbelt-nested-calls-"));
			await mkdir(join(repo(), "folder"), { recursive: true });
			await mkdir(home());
			await writeFile(join(repo(), "file.txt"), "content\n");
			await handOver(base, user);
			host(repo(), "git", ["init", "-q"]);
			const [file, ...prefix] = [...userPrefix(user), process.execPath];
			const transport = new StdioClientTransport({
				command: file ?? process.execPath,
				args: [...prefix, ensureBuiltCli(), "mcp", "--sandbox", "--cwd", repo()],
				cwd: repo(),
				env: env(),
				stderr: "pipe",
			});
			transport.stderr?.on("data", (chunk: Buffer) => {
				stderr += chunk.toString("utf8");
			});
			client = new Client({ name: "nested-between-calls", version: "1.0.0" });
			await client.connect(transport).catch((error: unknown) => {
				throw new Error(`toolbelt mcp did not start (${String(error)}); its stderr:\n${stderr}`);
			});
			expect(await sandboxed("echo started")).toContain("started");
		});

		afterAll(async () => {
			await client?.close();
			await rm(base, { recursive: true, force: true });
		});

		it("a repository the user makes between two calls stays the user's: kept, and read-only to the next call", async () => {
			expect(await sandboxed("echo first")).toContain("first");
			host(repo(), "git", ["init", "-q", "made-between"]);
			const config = `[core]\n\tfsmonitor = touch ${marker("between")}; false\n`;
			await sandboxed(plantCommand(join(repo(), "made-between", ".git", "config"), config));
			host(join(repo(), "made-between"), "git", ["status", "--porcelain"]);
			expect(existsSync(marker("between"))).toBe(false);
			expect(existsSync(join(repo(), "made-between", ".git", "HEAD"))).toBe(true);
			expect(readdirSync(join(repo(), "made-between")).filter((name) => name.includes("quarantined"))).toEqual([]);
		});

		it("a repository made two levels down in a folder the user made between calls is found too", async () => {
			await mkdir(join(repo(), "new-folder", "deeper"), { recursive: true });
			await handOver(join(repo(), "new-folder"), user);
			host(join(repo(), "new-folder"), "git", ["init", "-q", "deeper"]);
			const config = `[core]\n\tfsmonitor = touch ${marker("deeper")}; false\n`;
			await sandboxed(plantCommand(join(repo(), "new-folder", "deeper", ".git", "config"), config));
			host(join(repo(), "new-folder", "deeper"), "git", ["status", "--porcelain"]);
			expect(existsSync(marker("deeper"))).toBe(false);
			expect(existsSync(join(repo(), "new-folder", "deeper", ".git", "HEAD"))).toBe(true);
		});

		it("a known folder swapped for a new one of the same name holding a planted repository: renamed away", async () => {
			const planted = marker("swapped");
			const output = await sandboxed(
				`mv folder folder.old && mkdir folder && git init -q folder && git -C folder config core.fsmonitor "touch ${planted}; false"`,
			);
			host(join(repo(), "folder"), "git", ["status", "--porcelain"], true);
			expect(existsSync(planted)).toBe(false);
			expect(existsSync(join(repo(), "folder", ".git"))).toBe(false);
			expect(output).toContain("folder/.git");
		});
	},
);
