import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, readdir, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BenchCase, BenchContext, BenchOutcome } from "../types.js";

/**
 * The built CLI as `toolbelt` starts it (package.json's bin, `dist/cli/bin.cjs`);
 * `TOOLBELT_BENCH_BIN` points at another build (e.g. the base commit's `bin.js`) to compare.
 */
const bin = process.env.TOOLBELT_BENCH_BIN ?? fileURLToPath(new URL("../../dist/cli/bin.cjs", import.meta.url));
// Both sides run under /usr/bin/time when it is there (the raw side always does), so its cost
// cancels out of the ratio and the CLI's own peak memory is known.
const gnuTime = existsSync("/usr/bin/time");
/** The bare start every CLI case is measured against, as the table has it. */
const bareNode = `node -e 0`;
/** What a one-shot bash call does at the least: a Node start that runs `bash -c 'echo ok'`. */
const nodeStartingBash = `node -e "require('node:child_process').spawnSync('bash', ['-c', 'echo ok'], { stdio: 'inherit' })"`;

function peakNote(stderr: string): string | undefined {
	const last = stderr.trim().split("\n").pop() ?? "";
	return gnuTime && /^\d+$/.test(last) ? `CLI peak RSS ${(Number(last) / 1024).toFixed(0)} MB` : undefined;
}

/**
 * The environment of every CLI start here: V8's code cache (src/cli/startup/bundle-loader.ts) in
 * a folder of the bench's own, so what it holds is known (see `warmMcpCodeCache`), not whatever
 * this machine's earlier runs left.
 */
function cliEnv(dataDir: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
	return { ...process.env, XDG_CACHE_HOME: join(dataDir, "cache-home"), ...extra };
}

/**
 * Makes `toolbelt mcp`'s code cache entry the way a user's first session makes it: the entry holds
 * what its first run compiled, and a first run that only answered `initialize` (this bench's own
 * warm-up) would leave out every call's code, which each row's first call would then compile (~8
 * ms of a first bash call). Once per build: a marker names the bundle the entry was made for.
 */
async function warmMcpCodeCache(dataDir: string): Promise<void> {
	const bundle = join(dirname(bin), "toolbelt-mcp.cjs");
	const hash = existsSync(bundle)
		? /sha256=([0-9a-f]{16})/.exec(readFileSync(bundle, "latin1").slice(0, 100))?.[1]
		: undefined;
	const cacheHome = join(dataDir, "cache-home");
	const marker = join(cacheHome, `warmed-${hash}`);
	if (!hash || existsSync(marker)) return;
	const entries = join(cacheHome, "toolbelt", "v8-code-cache");
	for (const name of existsSync(entries) ? await readdir(entries) : []) {
		if (name.endsWith("-mcp.v8cache")) await rm(join(entries, name), { force: true });
	}
	await mkdir(cacheHome, { recursive: true });
	await writeFile(join(dataDir, "small.txt"), "hello\n");
	const session = await openMcpSession(dataDir, cliEnv(dataDir));
	try {
		await session.call("read", { path: "small.txt" });
		await session.call("bash", { command: "echo ok" });
		await session.call("grep", { pattern: "hello", path: "small.txt" });
		await session.call("edit", { path: "small.txt", old_string: "hello", new_string: "hello" });
	} finally {
		session.close();
	}
	await pause(500);
	await writeFile(marker, "");
}

/** A row's set-up: the group's data folder exists. */
async function withDataDir({ dataDir }: BenchContext): Promise<void> {
	await mkdir(dataDir, { recursive: true });
}

/** An MCP row's set-up: the data folder, and `toolbelt mcp`'s code cache made by a full session. */
async function withMcpCodeCache({ dataDir }: BenchContext): Promise<void> {
	await mkdir(dataDir, { recursive: true });
	await warmMcpCodeCache(dataDir);
}

function timeCli(args: string[], expect: (stdout: string) => boolean, cwd: string): BenchOutcome {
	const argv = gnuTime
		? ["/usr/bin/time", "-f", "%M", process.execPath, bin, ...args]
		: [process.execPath, bin, ...args];
	const started = performance.now();
	const result = spawnSync(argv[0] ?? process.execPath, argv.slice(1), { encoding: "utf8", cwd, env: cliEnv(cwd) });
	const ms = performance.now() - started;
	return { ok: result.status === 0 && expect(result.stdout), ms, note: peakNote(result.stderr) };
}

/** Spawns `toolbelt mcp` (stdio), sends `initialize`, and stops the clock at its answer. */
function timeMcpInitialize(cwd: string): Promise<BenchOutcome> {
	const started = performance.now();
	const child = spawn(process.execPath, [bin, "mcp"], { cwd, env: cliEnv(cwd), stdio: ["pipe", "pipe", "ignore"] });
	const request = {
		jsonrpc: "2.0",
		id: 1,
		method: "initialize",
		params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
	};
	child.stdin.write(`${JSON.stringify(request)}\n`);
	return new Promise((resolve) => {
		let output = "";
		const timer = setTimeout(() => finish(false), 30_000);
		const finish = (ok: boolean) => {
			const ms = performance.now() - started;
			clearTimeout(timer);
			child.kill();
			resolve({ ok, ms });
		};
		child.stdout.on("data", (chunk: Buffer) => {
			output += chunk.toString();
			if (output.includes('"id":1') && output.includes("serverInfo")) finish(true);
		});
		child.once("exit", () => finish(output.includes("serverInfo")));
	});
}

/** A JSON-RPC answer of the server (a tool call's result among them). */
interface McpAnswer {
	result?: { isError?: boolean; content?: { type: string; text?: string }[] };
}

/** A fresh `toolbelt mcp` over stdio, past its handshake (`initialize`, `initialized`, `tools/list`). */
interface McpSession {
	/** One tool call: its result's text, and whether it is an error. */
	call(name: string, args: object): Promise<{ text: string; isError: boolean }>;
	/** Ends the server. */
	close(): void;
}

/** Starts `toolbelt mcp --no-record` in `cwd` and goes through its handshake; one exchange at a time. */
async function openMcpSession(cwd: string, env: NodeJS.ProcessEnv): Promise<McpSession> {
	const child = spawn(process.execPath, [bin, "mcp", "--no-record"], { cwd, env, stdio: ["pipe", "pipe", "ignore"] });
	let buffered = "";
	const waiting = new Map<number, (message: McpAnswer) => void>();
	child.stdout.on("data", (chunk: Buffer) => {
		buffered += chunk.toString();
		for (let end = buffered.indexOf("\n"); end >= 0; end = buffered.indexOf("\n")) {
			const message = JSON.parse(buffered.slice(0, end));
			buffered = buffered.slice(end + 1);
			waiting.get(message.id)?.(message);
		}
	});
	let id = 0;
	const exchange = (method: string, params: object) =>
		new Promise<McpAnswer>((resolve, reject) => {
			const sent = ++id;
			const timer = setTimeout(() => reject(new Error(`no answer to ${method} in 30 s`)), 30_000);
			waiting.set(sent, (message) => {
				clearTimeout(timer);
				resolve(message);
			});
			child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: sent, method, params })}\n`);
		});
	const close = () => {
		child.stdin.end();
		child.kill();
	};
	try {
		const client = { name: "bench", version: "1" };
		await exchange("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: client });
		child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
		await exchange("tools/list", {});
	} catch (error) {
		close();
		throw error;
	}
	return {
		call: async (name, args) => {
			const { result } = await exchange("tools/call", { name, arguments: args });
			return {
				text: result?.content?.map((part) => part.text ?? "").join("") ?? "",
				isError: result?.isError === true,
			};
		},
		close,
	};
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A fresh `toolbelt mcp`'s first bash call (`echo ok`), made a model's reply (`replyMs`) after
 * `initialize` and `tools/list` (or at once, 0); beside it, `bash -c 'echo ok'` spawned from this
 * process.
 */
async function timeMcpFirstBash(cwd: string, replyMs: number): Promise<BenchOutcome> {
	const session = await openMcpSession(cwd, cliEnv(cwd));
	try {
		await pause(replyMs);
		const started = performance.now();
		const answer = await session.call("bash", { command: "echo ok" });
		const ms = performance.now() - started;
		const rawStarted = performance.now();
		const raw = spawnSync("bash", ["-c", "echo ok"], { encoding: "utf8" });
		const rawMs = performance.now() - rawStarted;
		return { ok: !answer.isError && answer.text === "ok" && raw.stdout === "ok\n", ms, rawMs };
	} finally {
		session.close();
	}
}

/**
 * A fresh `toolbelt mcp` (diagnostics on) on a small TypeScript project: a file read 1 s after the
 * handshake, then edited `gapMs` later (a model's reply) with a type error; times the edit, which
 * is right when its result reports that error (not "diagnostics pending").
 */
async function timeMcpFirstEdit(dataDir: string, gapMs: number): Promise<BenchOutcome> {
	const project = join(dataDir, "ts-project");
	await rm(project, { recursive: true, force: true });
	await mkdir(join(project, "src"), { recursive: true });
	await writeFile(join(project, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, noEmit: true } }));
	for (let index = 0; index < 30; index++) {
		const source = `export function f${index}(a: number): number {\n\treturn a + ${index};\n}\n`;
		await writeFile(join(project, "src", `f${index}.ts`), source);
	}
	const session = await openMcpSession(project, cliEnv(dataDir, { TOOLBELT_DIAGNOSTICS: "1" }));
	try {
		await pause(1_000);
		await session.call("read", { path: "src/f3.ts" });
		await pause(gapMs);
		const edit = { path: "src/f3.ts", old_string: "return a + 3;", new_string: 'return a + "3";' };
		const started = performance.now();
		const { text } = await session.call("edit", edit);
		const ms = performance.now() - started;
		return {
			ok: text.includes("1 new error after this change"),
			ms,
			note: /diagnostics pending/.test(text) ? "pending" : undefined,
		};
	} finally {
		session.close();
	}
}

/** CLI start-up: the built binary against a bare `node` start, in the same run. */
export const cases: BenchCase[] = [
	{
		group: "cli",
		name: "toolbelt --version (built binary, wall clock)",
		goal: "≤ 1.5× node -e 0",
		maxRatio: 1.5,
		repeat: 9,
		setup: withDataDir,
		toolbelt: async ({ dataDir }) => timeCli(["--version"], (stdout) => /^\d+\.\d+\.\d+/.test(stdout), dataDir),
		baseline: bareNode,
	},
	{
		group: "cli",
		name: "toolbelt tools (all 11 definitions)",
		goal: "≤ 1.5× node -e 0",
		maxRatio: 1.5,
		repeat: 7,
		setup: withDataDir,
		toolbelt: async ({ dataDir }) => timeCli(["tools"], (stdout) => stdout.includes("grep"), dataDir),
		baseline: bareNode,
	},
	{
		group: "cli",
		name: "toolbelt tool read (one small file, cold)",
		goal: "≤ 1.5× node -e 0",
		maxRatio: 1.5,
		repeat: 7,
		setup: async ({ dataDir }) => {
			await mkdir(dataDir, { recursive: true });
			await writeFile(join(dataDir, "small.txt"), "hello\n");
		},
		toolbelt: async ({ dataDir }) =>
			timeCli(["tool", "read", '{"path":"small.txt"}'], (stdout) => stdout.includes("hello"), dataDir),
		baseline: bareNode,
	},
	{
		group: "cli",
		name: "toolbelt tool bash (echo ok, one-shot)",
		goal: "≤ 2× node starting bash -c 'echo ok'",
		maxRatio: 2,
		repeat: 7,
		setup: withDataDir,
		toolbelt: async ({ dataDir }) =>
			timeCli(["tool", "bash", '{"command":"echo ok"}'], (stdout) => stdout === "ok\n", dataDir),
		baseline: nodeStartingBash,
	},
	{
		group: "cli",
		name: "toolbelt mcp: spawn to initialize answered (stdio)",
		goal: "≤ 2× node -e 0",
		maxRatio: 2,
		repeat: 7,
		setup: withMcpCodeCache,
		toolbelt: async ({ dataDir }) => timeMcpInitialize(dataDir),
		baseline: bareNode,
	},
	{
		group: "cli",
		name: "toolbelt mcp: first bash call (echo ok) 1 s after tools/list",
		goal: "≤ 2× bash -c 'echo ok' spawned from Node",
		maxRatio: 2,
		repeat: 7,
		setup: withMcpCodeCache,
		toolbelt: async ({ dataDir }) => timeMcpFirstBash(dataDir, 1_000),
	},
	{
		group: "cli",
		name: "toolbelt mcp: first bash call (echo ok) at once after tools/list",
		goal: "≤ 2× bash -c 'echo ok' spawned from Node",
		maxRatio: 2,
		repeat: 7,
		setup: withMcpCodeCache,
		toolbelt: async ({ dataDir }) => timeMcpFirstBash(dataDir, 0),
	},
	{
		group: "cli",
		name: "toolbelt mcp: first edit of a TypeScript file, 3 s after reading it (diagnostics on)",
		goal: "its diagnostics within the 1.5 s budget",
		maxMs: 1_500,
		repeat: 3,
		setup: withMcpCodeCache,
		toolbelt: async ({ dataDir }) => timeMcpFirstEdit(dataDir, 3_000),
	},
];
