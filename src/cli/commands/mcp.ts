import { realpathSync } from "node:fs";
import { DEFAULT_MAX_MESSAGE_BYTES, isLoopbackHost } from "../../mcp/index.js";
import type { SessionRecorder } from "../../sessions/index.js";
import {
	batchBudgetOption,
	booleanOption,
	type OptionSpecs,
	parseCommandArgs,
	stringOption,
	UsageError,
} from "../args.js";
import { loadToolCatalog } from "../catalog/tool-catalog.js";
import { selectToolNames } from "../catalog/tool-selection.js";
import { type CliIO, ExitCode } from "../io.js";
import { resolveCwd } from "../paths.js";
import { safetyOptions } from "../setup/safety-options.js";
import { homeOf } from "../setup/session-recording.js";
import { connectionInstructions, httpAccessFromFlags, httpAccessOptions, mcpTokenVariable } from "./mcp-http-access.js";

// An MCP client asks its own user before each call, so nothing here asks: the mode defaults to yolo,
// and confinement, deny rules, protected paths, stale-write protection and command hooks stay in force.
const { ask: _noAsking, ...servedSafetyOptions } = safetyOptions;
const mcpSafetyOptions: OptionSpecs = {
	...servedSafetyOptions,
	mode: {
		...safetyOptions.mode!,
		description:
			"Permission mode: yolo (default here: the MCP client approves each call), accept-edits, default or read-only. Calls that would need approval are refused with a reason the model can act on.",
	},
};

const serveOptions: OptionSpecs = {
	http: {
		type: "string",
		valueName: "<host:port>",
		description:
			"Serve Streamable HTTP on a loopback address instead of stdio, e.g. 127.0.0.1:8765 (port 0 picks one). Every request needs the bearer token printed at start.",
	},
	...httpAccessOptions,
	"max-message-mb": {
		type: "string",
		valueName: "<MiB>",
		description: `The largest message read, in MiB (default ${DEFAULT_MAX_MESSAGE_BYTES / 2 ** 20}); a larger one gets a JSON-RPC error and the server serves on.`,
	},
	tools: {
		type: "string",
		valueName: "<names>",
		description: "Comma-separated tools to serve (default: all except powershell off Windows).",
	},
	"read-only": { type: "boolean", description: "Serve only read, grep, find and ls." },
	"batch-budget": {
		type: "string",
		valueName: "<KB>",
		description:
			"Most KB of text the results of calls running at the same time return together, shared fairly (each result waits for the others). Default: none.",
	},
	"no-record": {
		type: "boolean",
		description: "Do not record the clients' sessions (by default each is recorded; see toolbelt sessions).",
	},
	cwd: {
		type: "string",
		valueName: "<dir>",
		description: "Directory the tools are rooted at (default: the current one).",
	},
	...mcpSafetyOptions,
	help: { type: "boolean", short: "h", description: "Show this help." },
};

const inspectOptions: OptionSpecs = {
	"mcp-config": {
		type: "string",
		valueName: "<file>",
		description: "An mcpServers JSON file (Claude Desktop / Claude Code format).",
	},
	help: { type: "boolean", short: "h", description: "Show this help." },
};

function optionLines(specs: OptionSpecs): string {
	return Object.entries(specs)
		.map(([name, spec]) => {
			const flag = `${spec.short ? `-${spec.short}, ` : ""}--${name}${spec.type === "string" ? ` ${spec.valueName ?? "<value>"}` : ""}`;
			return `  ${flag.padEnd(26)} ${spec.description}`;
		})
		.join("\n");
}

const help = `Usage: toolbelt mcp [options]
       toolbelt mcp inspect --mcp-config <file>

Serves toolbelt's tools to any MCP client (Claude Desktop, Claude Code, Cursor, …) over stdio,
or over Streamable HTTP on a loopback port. Only protocol messages go to stdout; logs go to stderr.
With stdio the server exits when its stdin closes and ends every process it started.

Over HTTP every request must send 'Authorization: Bearer <token>' (401 otherwise): the token is
${mcpTokenVariable} when set, else read from --token-file, else a new random one per start. The
token, the URL and a ready-made 'claude mcp add' line are printed on stderr. Requests with an
Origin header (web pages) get 403 unless --allow-origin names that origin.

Options:
${optionLines(serveOptions)}

'inspect' connects to the servers of an mcpServers file and lists the tools the agent would get:
${optionLines(inspectOptions)}
`;

function parseHttpAddress(value: string): { host: string; port: number } {
	const match = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(value) ?? /^()(\d+)$/.exec(value);
	if (!match) throw new UsageError(`--http ${value}: expected host:port, e.g. 127.0.0.1:8765.`);
	const host = (match[1] || "127.0.0.1").replace(/^\[(.*)\]$/, "$1");
	const port = Number(match[2]);
	if (port > 65535) throw new UsageError(`--http ${value}: port must be 0–65535.`);
	if (!isLoopbackHost(host)) {
		throw new UsageError(
			`--http ${value}: only loopback addresses (127.0.0.1, ::1, localhost) are allowed; ` +
				"the endpoint is plain HTTP, so its token would cross the network in clear text.",
			{ showHelpHint: false },
		);
	}
	return { host, port };
}

function parseMaxMessageBytes(value: string | undefined): number | undefined {
	if (value === undefined) return undefined;
	const mebibytes = Number(value);
	if (!Number.isFinite(mebibytes) || mebibytes <= 0 || mebibytes > 1024) {
		throw new UsageError(`--max-message-mb ${value}: expected a number of MiB above 0 and at most 1024, e.g. 16.`);
	}
	return Math.floor(mebibytes * 2 ** 20);
}

/** What someone who typed `toolbelt mcp` at a terminal is told: this waits for a client, not for them. */
const terminalHint =
	"toolbelt mcp: serving MCP (JSON-RPC) on stdin/stdout; it waits for an MCP client, not for typing.\n" +
	"  Connect a client by letting it start this command, e.g.: claude mcp add toolbelt -- toolbelt mcp --cwd <dir>\n" +
	'  or in an mcpServers config: { "toolbelt": { "command": "toolbelt", "args": ["mcp", "--cwd", "<dir>"] } }\n' +
	"  For a client that connects over HTTP: toolbelt mcp --http 127.0.0.1:8765. Press Ctrl-D or Ctrl-C to quit.\n";

/** Resolves when SIGINT or SIGTERM arrives; `dispose` stops listening. */
function onTermination(io: CliIO, listener: () => void): () => void {
	const unsubscribeInterrupt = io.onInterrupt?.(listener);
	process.once("SIGTERM", listener);
	return () => {
		unsubscribeInterrupt?.();
		process.off("SIGTERM", listener);
	};
}

async function serve(argv: string[], io: CliIO): Promise<number> {
	const args = parseCommandArgs(argv, serveOptions);
	if (args.values.help === true) {
		io.stdout.write(help);
		return ExitCode.ok;
	}
	if (args.positionals.length > 0) throw new UsageError(`Unexpected argument '${args.positionals[0]}'.`);
	const httpValue = stringOption(args.values, "http");
	const address = httpValue === undefined ? undefined : parseHttpAddress(httpValue);
	const maxMessageBytes = parseMaxMessageBytes(stringOption(args.values, "max-message-mb"));
	const batchBudget = batchBudgetOption(args.values);
	const access = await httpAccessFromFlags(args.values, io, address !== undefined);
	const transport = address === undefined ? ("stdio" as const) : { http: { ...address, ...access.options } };
	const cwd = await resolveCwd(io, args.values);
	// Started together: the MCP SDK's modules are read while the tools and the safety layer are
	// compiled, which brings `initialize` about a tenth sooner.
	const serverModule = import("../../mcp/index.js");
	const safetyModule = import("../setup/safety-setup.js");
	// Awaited below; a failure before then (a bad flag, a bad settings file) must not also report it.
	serverModule.catch(() => {});
	safetyModule.catch(() => {});
	const catalog = await loadToolCatalog();
	const names = selectToolNames(args.values, catalog);
	const { createCliSafety } = await safetyModule;
	const safety = await createCliSafety({
		cwd,
		flags: args.values,
		io,
		mode: "yolo",
		turnPerCall: true,
		openCheckpointsOnFirstCall: true,
		checkpoints: !names.every((name) => catalog.readOnlyToolNames.includes(name)),
	});
	const { openCliDiagnostics, readsPrepareDiagnostics, withDiagnostics } = await import(
		"../setup/diagnostics-setup.js"
	);
	const diagnostics = await openCliDiagnostics(safety, "mcp", {
		trustProjectFlag: booleanOption(args.values, "trust-project"),
		env: io.env,
	});
	const { runMcpServer } = await serverModule;
	const log = (message: string) => void io.stderr.write(`${message}\n`);
	const running = await runMcpServer({
		cwd: safety.cwd,
		tools: names as Parameters<typeof runMcpServer>[0]["tools"],
		toolsOptions: withDiagnostics(safety.toolOptions, diagnostics, {
			readsPrepare: readsPrepareDiagnostics(safety, names),
		}),
		// The language servers end with the server (their trees are killed at toolbelt's exit in any case).
		...(diagnostics ? { onShutdown: () => diagnostics.dispose() } : {}),
		...safety.hooks,
		transport,
		maxMessageBytes,
		...batchBudget,
		// stdio belongs to the protocol only when we are the real process; tests pass in-memory streams.
		stdin: io.stdin,
		stdout: io.stdout,
		log,
		...(booleanOption(args.values, "no-record") ? {} : { recordSession: mcpRecording(io, safety.cwd) }),
	});
	// A client's first call comes a model's reply after the handshake: what it would wait for (the
	// shell parser, the checkpoints) is made ready meanwhile.
	safety.prepareFor(running.toolNames);
	if (!running.url && (io.stdinIsTTY ?? io.isTTY)) io.stderr.write(terminalHint);
	if (running.url) {
		io.stderr.write(`toolbelt mcp: serving ${running.toolNames.join(", ")} at ${running.url}\n`);
		io.stderr.write(connectionInstructions(running.url, running.token, access.source));
	}
	const stopListening = onTermination(io, () => void running.close());
	try {
		await running.closed;
	} finally {
		stopListening();
	}
	return ExitCode.ok;
}

/** Opens the recording of one client's session (at its first call: `initialize` waits for nothing). */
function mcpRecording(io: CliIO, cwd: string): (client: string | undefined) => Promise<SessionRecorder | undefined> {
	return async (client) => {
		const { openSessionRecorder } = await import("../../sessions/index.js");
		// One folder's real path, at once: `node:fs/promises` would cost this first call ~3 ms to load.
		const folder = realPathOr(cwd);
		const opened = await openSessionRecorder({
			env: io.env,
			homeDir: homeOf(io),
			workspaceFolders: [folder],
			source: "mcp",
			cwd: folder,
			...(client ? { client } : {}),
			onWarning: (message) => void io.stderr.write(`toolbelt mcp: ${message}\n`),
		});
		if (opened.refused !== undefined) io.stderr.write(`toolbelt mcp: ${opened.refused}\n`);
		return opened.recorder;
	};
}

function realPathOr(path: string): string {
	try {
		return realpathSync(path);
	} catch {
		return path;
	}
}

async function inspect(argv: string[], io: CliIO): Promise<number> {
	const args = parseCommandArgs(argv, inspectOptions);
	if (args.values.help === true) {
		io.stdout.write(help);
		return ExitCode.ok;
	}
	const configPath = stringOption(args.values, "mcp-config") ?? args.positionals[0];
	if (!configPath) throw new UsageError("inspect needs --mcp-config <file>.");
	const { loadMcpTools } = await import("../../mcp/index.js");
	const { McpConfigError } = await import("../../mcp/index.js");
	let loaded: Awaited<ReturnType<typeof loadMcpTools>>;
	try {
		loaded = await loadMcpTools(configPath, { env: io.env });
	} catch (error) {
		if (error instanceof McpConfigError) throw new UsageError(error.message, { showHelpHint: false });
		throw error;
	}
	try {
		for (const server of loaded.servers) {
			if (server.error) {
				io.stdout.write(`${server.name}: FAILED\n  ${server.error.replace(/\n/g, "\n  ")}\n`);
				continue;
			}
			io.stdout.write(`${server.name}: ${server.tools.length} tool${server.tools.length === 1 ? "" : "s"}\n`);
			for (const name of server.tools) {
				const tool = loaded.tools.find((candidate) => candidate.name === name);
				const mode = tool?.executionMode === "parallel" ? "read-only" : "writes";
				const summary = (tool?.description ?? "").split("\n")[0]?.slice(0, 100) ?? "";
				io.stdout.write(`  ${name}  ${mode}  ${summary}\n`);
			}
		}
	} finally {
		await loaded.close();
	}
	return loaded.servers.some((server) => server.error) ? ExitCode.error : ExitCode.ok;
}

/**
 * `toolbelt mcp …`: serves the tools over MCP (stdio, or `--http host:port`), or with `inspect`
 * lists what the servers of an mcpServers file offer. Receives the arguments after `mcp`.
 * Throws `UsageError` for bad flags (main prints it and exits 2).
 */
export async function runMcpCommand(argv: string[], io: CliIO): Promise<number> {
	if (argv[0] === "inspect") return inspect(argv.slice(1), io);
	return serve(argv, io);
}
