import { randomUUID } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createSafetyLayer } from "../../src/safety/index.js";
import { bindSteps } from "../../src/safety/sandbox/bwrap-args.js";
import { buildBwrapArgs, createSandbox, SandboxUnavailableError } from "../../src/safety/sandbox.js";
import { createBashTool } from "../../src/tools/bash.js";
import { localShellOperations } from "../../src/workspace/local/shell/local-operations.js";
import { sandboxUnavailableReason } from "../helpers/prerequisites.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { runCall, textOf } from "./run-calls.js";

const unavailable = await sandboxUnavailableReason();

const tempDir = useTempDir();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
	for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function sandboxedBash(options: { allowNetwork?: boolean } = {}) {
	const project = join(tempDir(), "project");
	await mkdir(project, { recursive: true });
	const sandbox = await createSandbox({ writableRoots: [project], ...options });
	return { project, tools: [createBashTool(project, { operations: sandbox.wrap(localShellOperations) })] };
}

const noHooks = {};

/** Pids of live (non-zombie) processes whose command line contains `text`. */
function survivors(text: string): number[] {
	const pids: number[] = [];
	for (const entry of readdirSync("/proc")) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			const commandLine = readFileSync(`/proc/${entry}/cmdline`, "utf8").replace(/\0/g, " ");
			const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
			if (commandLine.includes(text) && stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z") pids.push(Number(entry));
		} catch {
			// The process ended while we looked.
		}
	}
	return pids;
}

describe("buildBwrapArgs", () => {
	it("makes / read-only, /tmp private, the roots writable, protected paths read-only on top, the network off", () => {
		const args = buildBwrapArgs({
			writable: ["/work/proj/cache", "/work/proj"],
			readOnly: ["/work/proj/.git", "/work/proj/.toolbelt"],
			hidden: [
				{ path: "/home/u/.ssh", kind: "directory" },
				{ path: "/home/u/.netrc", kind: "file" },
			],
			seccompFd: 9,
			identity: { uid: 0, gid: 0 },
			disableNestedUserNamespaces: true,
			cwd: "/work/proj/sub",
		});
		const text = args.join(" ");
		expect(text).toMatch(
			/^--ro-bind \/ \/ --dev \/dev --proc \/proc --ro-bind \/proc\/sys \/proc\/sys --tmpfs \/tmp --bind \/work\/proj \/work\/proj --bind \/work\/proj\/cache \/work\/proj\/cache --ro-bind \/work\/proj\/.git \/work\/proj\/.git --ro-bind \/work\/proj\/.toolbelt /,
		);
		expect(text).toContain("--tmpfs /home/u/.ssh --ro-bind /dev/null /home/u/.netrc");
		expect(text).toContain("--seccomp 9");
		// A user namespace of its own mapped to the invoking ids, no capability, no nested user namespace.
		expect(text).toContain("--unshare-user --uid 0 --gid 0 --cap-drop ALL --disable-userns");
		expect(args).toContain("--unshare-net");
		expect(args).toContain("--die-with-parent");
		expect(args.slice(-3)).toEqual(["--chdir", "/work/proj/sub", "--"]);
		const withNetwork = buildBwrapArgs({
			writable: [],
			cwd: "/",
			allowNetwork: true,
			identity: { uid: 1000, gid: 100 },
		});
		expect(withNetwork).not.toContain("--unshare-net");
		expect(withNetwork.join(" ")).toContain("--unshare-user --uid 1000 --gid 100 --cap-drop ALL");
		expect(withNetwork).not.toContain("--disable-userns");
	});

	it("binds a writable path named inside a protected one after the protection", () => {
		const args = buildBwrapArgs({
			writable: ["/p", "/p/.vscode/cache"],
			readOnly: ["/p/.vscode"],
			identity: { uid: 0, gid: 0 },
			cwd: "/p",
		}).join(" ");
		expect(args.indexOf("--ro-bind /p/.vscode /p/.vscode")).toBeLessThan(
			args.indexOf("--bind /p/.vscode/cache /p/.vscode/cache"),
		);
	});

	it("binds each folder on the way to a nested read-only path onto itself first, so it cannot be renamed away", () => {
		const args = buildBwrapArgs({
			writable: ["/p"],
			readOnly: ["/p/.git", "/p/tools/git/fsmonitor.sh", "/p/tools/hooks", "/p/.git/x/y"],
			identity: { uid: 0, gid: 0 },
			cwd: "/p",
		}).join(" ");
		expect(args).toContain("--bind /p /p --bind /p/tools /p/tools --bind /p/tools/git /p/tools/git --ro-bind /p/.git");
		// A folder inside a read-only path is never bound writable.
		expect(args).not.toContain("--bind /p/.git/x ");
	});

	it("pins the folders on the way to a writable path inside a root too, each bound before what lies below it", () => {
		const args = buildBwrapArgs({
			writable: ["/p/build/cache/out", "/p"],
			readOnly: ["/p/build/x.sh"],
			identity: { uid: 0, gid: 0 },
			cwd: "/p",
		}).join(" ");
		expect(args).toContain(
			"--bind /p /p --bind /p/build /p/build --bind /p/build/cache /p/build/cache --bind /p/build/cache/out /p/build/cache/out --ro-bind /p/build/x.sh",
		);
	});

	it("pins the folders on the way to a hidden credential location inside a writable path", () => {
		const args = buildBwrapArgs({
			writable: ["/p", "/h/.local"],
			hidden: [{ path: "/h/.local/share/keyrings", kind: "directory" }],
			identity: { uid: 0, gid: 0 },
			cwd: "/p",
		}).join(" ");
		expect(args).toContain("--bind /h/.local/share /h/.local/share");
		expect(args.indexOf("--bind /h/.local/share ")).toBeLessThan(args.indexOf("--tmpfs /h/.local/share/keyrings"));
	});

	it("binds each source from its descriptor when given one, step by step in bindSteps' order", () => {
		const layout = { writable: ["/p"], readOnly: ["/p/.git", "/p/sub/.git"], identity: { uid: 0, gid: 0 }, cwd: "/p" };
		const steps = bindSteps(layout.writable, layout.readOnly);
		expect(steps.map((step) => step.path)).toEqual(["/p", "/p/sub", "/p/.git", "/p/sub/.git"]);
		const args = buildBwrapArgs({ ...layout, sources: steps.map((_, index) => 20 + index) }).join(" ");
		expect(args).toContain(
			"--bind-fd 20 /p --bind-fd 21 /p/sub --ro-bind-fd 22 /p/.git --ro-bind-fd 23 /p/sub/.git --unshare-user",
		);
	});
});

describe("missing bubblewrap", () => {
	it("is a clear error, never a silent unsandboxed run", async () => {
		const bwrapPath = join(tempDir(), "no-such-bwrap");
		const error = await createSandbox({ writableRoots: [tempDir()], bwrapPath }).catch((caught: unknown) => caught);
		expect(error).toBeInstanceOf(SandboxUnavailableError);
		expect((error as Error).message).toMatch(/bubblewrap .* is not installed.*not run unsandboxed/s);
		await expect(
			createSafetyLayer({ cwd: tempDir(), homeDir: join(tempDir(), "home"), sandbox: { bwrapPath } }),
		).rejects.toThrow(SandboxUnavailableError);
	});
});

describe.skipIf(unavailable !== undefined)("bash in the bubblewrap sandbox", () => {
	it("writes inside the workspace", async () => {
		const { project, tools } = await sandboxedBash();
		const message = await runCall(tools, noHooks, "bash", {
			command: "mkdir -p out && echo inside > out/file.txt && cat out/file.txt",
		});
		expect(message.isError).toBe(false);
		expect(await readFile(join(project, "out", "file.txt"), "utf8")).toBe("inside\n");
	});

	it("hands the tool's and a call's early start on to the shell operations, whose shell starts bwrap as without one", async () => {
		const project = join(tempDir(), "project");
		await mkdir(project, { recursive: true });
		const sandbox = await createSandbox({ writableRoots: [project] });
		const prepared: string[] = [];
		const operations = { ...localShellOperations, prepare: (cwd: string) => void prepared.push(cwd) };
		const tools = [createBashTool(project, { operations: sandbox.wrap(operations) })];
		expect(prepared).toEqual([project]);
		const message = await runCall(tools, noHooks, "bash", { command: "echo inside" });
		expect(textOf(message)).toBe("inside");
		expect(prepared).toEqual([project, project]);
		await sandbox.close();
	});

	it("runs the bash tool's command in the descriptor closer's own bash, as a fresh `bash -c` has it", async () => {
		const { project, tools } = await sandboxedBash();
		const probe = 'echo "$0|$#|$_|$BASH_EXECUTION_STRING"; compgen -v | grep -c "^toolbelt_"; exit 3';
		const bare = [createBashTool(project)];
		const inside = await runCall(tools, noHooks, "bash", { command: probe });
		expect(textOf(inside)).toBe(textOf(await runCall(bare, noHooks, "bash", { command: probe })));
		expect(textOf(inside)).toContain(`/bin/bash|0|/bin/bash|${probe}\n0`);
		// One program is exec'd in place of the shell, as `bash -c` does: its parent is bwrap's init (pid 1).
		const stat = textOf(await runCall(tools, noHooks, "bash", { command: "cat /proc/self/stat" }));
		expect(stat.split(" ").slice(0, 4)).toEqual([expect.any(String), "(cat)", "R", "1"]);
	});

	it("cannot write outside the workspace: a sibling directory, /var/tmp, the host's /tmp", async () => {
		const { tools } = await sandboxedBash();
		const sibling = join(tempDir(), "sibling");
		await mkdir(sibling);
		const varTmp = join("/var/tmp", `toolbelt-sandbox-${randomUUID()}`);
		cleanups.push(() => rm(varTmp, { force: true }));
		for (const target of [join(sibling, "planted.txt"), varTmp]) {
			const message = await runCall(tools, noHooks, "bash", { command: `echo x > '${target}'` });
			expect(message.isError, target).toBe(true);
			expect(textOf(message)).toMatch(/Read-only file system|No such file or directory/);
			expect(existsSync(target)).toBe(false);
		}
		const hostTmp = join("/tmp", `toolbelt-sandbox-${randomUUID()}`);
		cleanups.push(() => rm(hostTmp, { force: true }));
		expect(
			(await runCall(tools, noHooks, "bash", { command: `echo x > '${hostTmp}' && cat '${hostTmp}'` })).isError,
		).toBe(false);
		expect(existsSync(hostTmp)).toBe(false);
	});

	it("keeps the project settings read-only inside the workspace", async () => {
		const { project, tools } = await sandboxedBash();
		const message = await runCall(tools, noHooks, "bash", { command: "echo '{}' > .toolbelt/settings.json" });
		expect(message.isError).toBe(true);
		expect(existsSync(join(project, ".toolbelt", "settings.json"))).toBe(false);
	});

	it("has no network: a connection to a loopback server outside the sandbox fails (and works when allowed)", async () => {
		let connections = 0;
		const server: Server = createServer((socket) => {
			connections++;
			socket.end("hello\n");
		});
		await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
		cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
		const port = (server.address() as { port: number }).port;
		const connect = `exec 3<>/dev/tcp/127.0.0.1/${port} && head -n1 <&3`;
		const closed = await sandboxedBash();
		const blocked = await runCall(closed.tools, noHooks, "bash", { command: connect });
		expect(blocked.isError).toBe(true);
		expect(textOf(blocked)).not.toContain("hello");
		expect(connections).toBe(0);
		const open = await sandboxedBash({ allowNetwork: true });
		const allowed = await runCall(open.tools, noHooks, "bash", { command: connect });
		expect(textOf(allowed)).toContain("hello");
		expect(connections).toBe(1);
	});

	it("returns promptly when the command leaves a background process", async () => {
		const { tools } = await sandboxedBash();
		const started = Date.now();
		const message = await runCall(tools, noHooks, "bash", { command: "sleep 30 & echo done" });
		expect(textOf(message)).toContain("done");
		expect(Date.now() - started).toBeLessThan(5000);
	});

	it("a timeout kills the sandboxed command and everything it started", async () => {
		const { tools } = await sandboxedBash();
		const marker = 4000 + Math.floor(Math.random() * 1000);
		const started = Date.now();
		const message = await runCall(tools, noHooks, "bash", {
			command: `sleep ${marker}.5 & sleep ${marker}.25`,
			timeout: 1,
		});
		expect(message.isError).toBe(true);
		expect(Date.now() - started).toBeLessThan(5000);
		await new Promise((resolve) => setTimeout(resolve, 300));
		expect(survivors(`sleep ${marker}.`)).toEqual([]);
	});

	it("createSafetyLayer wires the sandbox from the settings file into the shell options", async () => {
		const project = join(tempDir(), "project");
		await mkdir(join(project, ".toolbelt"), { recursive: true });
		await writeFile(join(project, ".toolbelt", "settings.json"), JSON.stringify({ sandbox: { enabled: true } }));
		const safety = await createSafetyLayer({ cwd: project, homeDir: join(tempDir(), "home"), mode: "yolo" });
		expect(safety.sandbox).toBeDefined();
		const tools = [createBashTool(project, { ...safety.shell })];
		await mkdir(join(tempDir(), "sibling"));
		const outside = join(tempDir(), "sibling", "outside.txt");
		const message = await runCall(tools, safety.hooks, "bash", { command: `echo x > '${outside}'` });
		expect(message.isError).toBe(true);
		expect(existsSync(outside)).toBe(false);
		expect((await runCall(tools, safety.hooks, "bash", { command: "echo ok > inside.txt" })).isError).toBe(false);
		expect(await readFile(join(project, "inside.txt"), "utf8")).toBe("ok\n");
	});
});
