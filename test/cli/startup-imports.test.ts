import { spawn, spawnSync } from "node:child_process";
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { useTempDir } from "../helpers/temp-dir.js";
import { cleanEnv, ensureBuiltCli, moduleBinPath } from "./helpers/cli-binary.js";

const tempDir = useTempDir();
// The ES module entry: what it loads besides itself is the question (bin.cjs: bundledToolRead).
const binPath = moduleBinPath;
beforeAll(() => {
	ensureBuiltCli();
});

/**
 * The modules (URLs) `toolbelt …argv` resolves, and its result. Unbundled by default: the module
 * graph is what decides what the bundle initializes too (its lazy parts are the same imports).
 */
function tracedRun(argv: string[], cwd: string, env = cleanEnv({ TOOLBELT_NO_BUNDLE: "1" })) {
	const result = spawnSync(
		process.execPath,
		["--import", new URL("./fixtures/trace-imports.mjs", import.meta.url).href, binPath, ...argv],
		{ encoding: "utf8", env, cwd },
	);
	const modules = result.stderr
		.split("\n")
		.filter((line) => line.startsWith("[import] "))
		.map((line) => line.slice("[import] ".length));
	return { result, modules };
}

/**
 * Runs the bundled `toolbelt tool read a.txt` in the temp folder, with Node's `flags` in front (a
 * tracer), its result into `out.txt` (as `> out.txt`: no stream of Node's is needed for a file).
 */
function bundledToolRead(flags: string[]) {
	const argv = [...flags, binPath.replace(/bin\.js$/, "bin.cjs"), "tool", "read", '{"path": "a.txt"}'];
	const env = cleanEnv({ XDG_CACHE_HOME: join(tempDir(), "cache") });
	const out = openSync(join(tempDir(), "out.txt"), "w");
	try {
		const result = spawnSync(process.execPath, argv, {
			encoding: "utf8",
			env,
			cwd: tempDir(),
			stdio: ["ignore", out, "pipe"],
		});
		return { ...result, stdout: readFileSync(join(tempDir(), "out.txt"), "utf8") };
	} finally {
		closeSync(out);
	}
}

/** A stdio MCP session's input: `initialize`, its notification, then `request`, one JSON message a line. */
function mcpSession(request: Record<string, unknown>): string {
	const lines = [
		{
			jsonrpc: "2.0",
			id: 1,
			method: "initialize",
			params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
		},
		{ jsonrpc: "2.0", method: "notifications/initialized" },
		request,
	];
	return lines.map((line) => `${JSON.stringify(line)}\n`).join("");
}

describe("what a one-shot start loads", () => {
	it("the built CLI starts from its bundle: no ES module of dist/ or node_modules is loaded besides bin.js", async () => {
		await writeFile(join(tempDir(), "a.txt"), "first line\n");
		const env = cleanEnv({ XDG_CACHE_HOME: join(tempDir(), "cache") });
		for (const argv of [["tool", "read", '{"path": "a.txt"}'], ["tools"]]) {
			const { result, modules } = tracedRun(argv, tempDir(), env);
			expect(result.status, result.stderr).toBe(0);
			const files = modules.filter((url) => url.startsWith("file:")).map((url) => url.replace(/^.*\/dist\//, ""));
			// The loader is required as one CommonJS file (bundle-loader.cjs), read synchronously.
			expect([...new Set(files)].sort()).toEqual(["cli/bin.js"]);
		}
	});

	it("the package's bin (bin.cjs) is a CommonJS start of the same bundle: no ES module of dist/ at all", async () => {
		await writeFile(join(tempDir(), "a.txt"), "first line\n");
		const packageBin = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")).bin.toolbelt;
		expect(packageBin).toBe("./dist/cli/bin.cjs");
		const result = bundledToolRead(["--import", new URL("./fixtures/trace-imports.mjs", import.meta.url).href]);
		expect(result.status, result.stderr).toBe(0);
		expect(result.stdout).toContain("first line");
		const esModules = result.stderr
			.split("\n")
			.filter((line) => line.startsWith("[import] file:") && line.endsWith(".js"));
		expect(esModules).toEqual([]);
	});

	it("toolbelt tool read loads read and the safety layer, not the other tools' implementations, TypeBox, the agent or MCP", async () => {
		await writeFile(join(tempDir(), "a.txt"), "first line\n");
		const { result, modules } = tracedRun(["tool", "read", '{"path": "a.txt"}'], tempDir());
		expect(result.status).toBe(0);
		expect(result.stdout).toContain("first line");
		// The whole safety layer is there, loaded as it is for every call.
		for (const part of [
			"safety/index.js",
			"safety/permissions/permissions.js",
			"safety/confinement.js",
			"safety/settings/settings.js",
		]) {
			expect(
				modules.some((url) => url.endsWith(`/dist/${part}`)),
				part,
			).toBe(true);
		}
		// The registry (src/tools/index.ts, which safety imports) holds every tool's definition; each
		// heavy part behind them (edit's matcher and diff, the patch runner, the searchers) loads on first use.
		const unwanted = modules.filter((url) =>
			/\/dist\/(tools\/(edit\/run|patch\/run|notebook\/edit-notebook)\.js|workspace\/local\/search\/(walker|walker-grep)\.js|safety\/sandbox\/network\/(session|proxy-server|http-proxy|secrets\/)|agent\/|mcp\/|adapters\/|checkpoints\/)|node_modules\/(typebox|@modelcontextprotocol|zod|diff|sharp|pdfjs-dist|openai|@anthropic-ai|ajv)\//.test(
				url,
			),
		);
		expect(unwanted).toEqual([]);
	});

	it("a bundled toolbelt tool read loads none of Node's network, terminal, crypto, compression or thread modules", async () => {
		await writeFile(join(tempDir(), "a.txt"), "first line\n");
		const result = bundledToolRead([
			"--require",
			fileURLToPath(new URL("./fixtures/trace-node-modules.cjs", import.meta.url)),
		]);
		expect(result.status, result.stderr).toBe(0);
		expect(result.stdout).toContain("first line");
		const line = result.stderr.split("\n").find((text) => text.startsWith("[node-modules] ")) ?? "";
		const loaded = line.slice("[node-modules] ".length).split(" ");
		// Present, so the list is real (the bundle is read and compiled with them).
		expect(loaded).toEqual(expect.arrayContaining(["fs", "vm"]));
		// Each is a few milliseconds of a start that never uses it: the sandbox's network modules, a
		// hash of what was read (one call per process), PDF streams, code mode's threads, and the
		// WebAssembly flags of the grammars, which a read never parses with (~10 ms for `v8`); and, its
		// result going into a file, `net` and `tty` (a terminal check loads them, as would the hooks' launcher).
		const unwanted = [
			"v8",
			"net",
			"tty",
			"http",
			"https",
			"tls",
			"dns",
			"dns/promises",
			"crypto",
			"zlib",
			"worker_threads",
			"child_process",
		];
		expect(loaded.filter((name) => unwanted.includes(name))).toEqual([]);
	});

	it("a first bash call of a plain command loads neither crypto nor the grammars' v8 flags; a recorded MCP session's first call neither crypto nor fs/promises", async () => {
		// Random names (a command's cgroup, its marker and output file, a session id) come from the
		// kernel's random device: `crypto` was ~6 ms of such a call. A plain command needs no grammar,
		// so a one-shot start sets no flags (`v8`, ~10 ms); nor does recording a session load
		// `fs/promises` before the call (~3 ms). The session is recorded (the default), into the temp folder.
		const tracer = fileURLToPath(new URL("./fixtures/trace-node-modules.cjs", import.meta.url));
		const bundled = binPath.replace(/bin\.js$/, "bin.cjs");
		const env = cleanEnv({ XDG_CACHE_HOME: join(tempDir(), "cache"), XDG_STATE_HOME: join(tempDir(), "state") });
		const loadedBy = (stderr: string, marker: string) =>
			(stderr.split("\n").find((text) => text.startsWith(marker)) ?? "").slice(marker.length).split(" ");

		const oneShot = spawnSync(
			process.execPath,
			["--require", tracer, bundled, "tool", "bash", '{"command":"echo ok"}'],
			{
				encoding: "utf8",
				env,
				cwd: tempDir(),
			},
		);
		expect(oneShot.status, oneShot.stderr).toBe(0);
		expect(oneShot.stdout).toBe("ok\n");
		const once = loadedBy(oneShot.stderr, "[node-modules] ");
		expect(once).toEqual(expect.arrayContaining(["fs", "vm", "child_process"]));
		expect(once.filter((name) => ["crypto", "v8"].includes(name))).toEqual([]);

		// Over MCP, recording (the default): what is loaded by the time the first call is answered
		// (the exit's own work, the recording's prune, comes after). A server of `ls` alone, which
		// loads neither on its own: with a tool that changes files, the checkpoints open 200 ms after
		// the start (`openAhead`), and on a loaded machine that may come before the answer.
		// Stdin stays open until the call is answered: its end stops the server and its calls.
		const served = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
			// The workspace beside the state folder, not around it (a recording inside it is refused).
			const project = join(tempDir(), "project");
			mkdirSync(project);
			writeFileSync(join(project, "served.txt"), "");
			const child = spawn(process.execPath, ["--require", tracer, bundled, "mcp", "--tools", "ls"], {
				env: { ...env, TRACE_MODULES_AT_OUTPUT: '"id":2' },
				cwd: project,
			});
			let stdout = "";
			let stderr = "";
			const timer = setTimeout(() => {
				child.kill("SIGKILL");
				reject(new Error(`no answer in 30 s: ${stdout} ${stderr}`));
			}, 30_000);
			child.stderr.on("data", (chunk: Buffer) => {
				stderr += chunk;
			});
			child.stdout.on("data", (chunk: Buffer) => {
				stdout += chunk;
				if (stdout.includes('"id":2')) child.stdin.end();
			});
			child.once("exit", () => {
				clearTimeout(timer);
				resolve({ stdout, stderr });
			});
			child.stdin.write(
				mcpSession({
					jsonrpc: "2.0",
					id: 2,
					method: "tools/call",
					params: { name: "ls", arguments: { path: "." } },
				}),
			);
		});
		expect(served.stdout).toContain("served.txt");
		const atAnswer = loadedBy(served.stderr, "[node-modules] ");
		expect(atAnswer).toEqual(expect.arrayContaining(["fs", "vm"]));
		expect(atAnswer.filter((name) => ["crypto", "fs/promises"].includes(name))).toEqual([]);
		// The session was recorded.
		expect(readdirSync(join(tempDir(), "state", "toolbelt", "sessions")).length).toBeGreaterThan(0);
	});

	it("toolbelt tools loads the eleven tools but not TypeBox, sharp, pdf.js or the MCP SDK", () => {
		const { result, modules } = tracedRun(["tools"], tempDir());
		expect(result.status).toBe(0);
		expect(result.stdout).toContain("grep");
		expect(modules.some((url) => url.endsWith("/dist/tools/edit.js"))).toBe(true);
		expect(
			modules.filter((url) => /node_modules\/(typebox|sharp|pdfjs-dist|@modelcontextprotocol)\//.test(url)),
		).toEqual([]);
	});

	it("toolbelt mcp over stdio answers initialize and tools/list without the SDK's client, its HTTP transport or Node's HTTP/2", () => {
		const input = mcpSession({ jsonrpc: "2.0", id: 2, method: "tools/list" });
		// Unbundled: the module graph the server's start initializes (its bundle's lazy parts are the same imports).
		const traced = spawnSync(
			process.execPath,
			["--import", new URL("./fixtures/trace-imports.mjs", import.meta.url).href, binPath, "mcp", "--no-record"],
			{ encoding: "utf8", env: cleanEnv({ TOOLBELT_NO_BUNDLE: "1" }), cwd: tempDir(), input },
		);
		expect(traced.stdout).toContain('"id":2');
		const modules = traced.stderr.split("\n").filter((line) => line.startsWith("[import] "));
		// Present, so the trace is real: the SDK's server side is what answers.
		expect(modules.some((line) => line.includes("@modelcontextprotocol/sdk/dist/esm/server/index.js"))).toBe(true);
		const unwanted = modules.filter((line) =>
			/@modelcontextprotocol\/sdk\/dist\/esm\/(client\/|server\/streamableHttp)|node_modules\/(@hono|eventsource|cross-spawn|pkce-challenge)\//.test(
				line,
			),
		);
		expect(unwanted).toEqual([]);
		// Bundled (the package's bin): none of Node's HTTP modules that the HTTP transport brings.
		const bundled = spawnSync(
			process.execPath,
			[
				"--require",
				fileURLToPath(new URL("./fixtures/trace-node-modules.cjs", import.meta.url)),
				binPath.replace(/bin\.js$/, "bin.cjs"),
				"mcp",
				"--no-record",
			],
			{ encoding: "utf8", env: cleanEnv({ XDG_CACHE_HOME: join(tempDir(), "cache") }), cwd: tempDir(), input },
		);
		expect(bundled.stdout).toContain('"id":2');
		const line = bundled.stderr.split("\n").find((text) => text.startsWith("[node-modules] ")) ?? "";
		const loaded = line.slice("[node-modules] ".length).split(" ");
		expect(loaded).toEqual(expect.arrayContaining(["fs", "vm"]));
		expect(loaded.filter((name) => ["http", "http2", "https", "tls"].includes(name))).toEqual([]);
	});

	it("the mcp bundle holds zod's messages in English only, and the bundled server still reports a malformed request in them", () => {
		const bundle = readFileSync(binPath.replace(/bin\.js$/, "toolbelt-mcp.cjs"), "latin1");
		expect(bundle).toContain("Invalid input: expected ");
		// One of zod's 63 other languages (Indonesian), in ASCII so the bundle's escaping cannot hide it.
		expect(bundle).not.toContain("Input tidak valid");
		const result = spawnSync(process.execPath, [binPath.replace(/bin\.js$/, "bin.cjs"), "mcp", "--no-record"], {
			encoding: "utf8",
			env: cleanEnv({ XDG_CACHE_HOME: join(tempDir(), "cache") }),
			cwd: tempDir(),
			input: mcpSession({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: 5 } }),
			timeout: 30_000,
		});
		const answer = result.stdout.split("\n").find((line) => line.includes('"id":2')) ?? "";
		expect(answer).toContain("-32602");
		expect(answer).toContain("Invalid input: expected string, received number");
	});
});
