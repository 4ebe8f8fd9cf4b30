import { resolve } from "node:path";
import type { Readable, Writable } from "node:stream";
import type { AnyAgentTool, ToolHooks } from "../engine/index.js";
import {
	createJobRegistry,
	createSelectedTools,
	defaultToolNames,
	type JobRegistry,
	type ToolSelection,
	type ToolsOptions,
} from "../tools/index.js";
import { disposeShellProcesses } from "../workspace/local/index.js";
import { createMcpServer, type McpServerOptions } from "./server.js";
import { BoundedStdioServerTransport } from "./stdio/transport.js";

/** How `runMcpServer` serves Streamable HTTP: where, and who may call. */
export interface McpHttpTransportOptions {
	/** A loopback address: `127.0.0.1`, `::1` or `localhost`. */
	host: string;
	/** The port; 0 picks a free one (read it from the result's `url`). */
	port: number;
	/**
	 * The bearer token every request must carry (`Authorization: Bearer <token>`), at least 16
	 * visible ASCII characters. Default: a fresh 256-bit random token, returned as `token`.
	 */
	token?: string;
	/**
	 * `false` serves without a token, so every local user and process can run the tools as you.
	 * Default: true.
	 */
	auth?: boolean;
	/**
	 * Browser origins (`scheme://host[:port]`) allowed to call; any other `Origin` gets 403.
	 * Default: none — only clients that send no `Origin` header.
	 */
	allowedOrigins?: readonly string[];
}

/** Where `runMcpServer` listens: `stdio`, or Streamable HTTP on a loopback address. */
export type McpServerTransportOption = "stdio" | { http: McpHttpTransportOptions };

/** Options of `runMcpServer`; `tools` defaults to all of them. */
export interface RunMcpServerOptions extends ToolHooks, ToolSelection {
	/** The directory the tools are rooted at (relative paths resolve against it). */
	cwd: string;
	/** `stdio` (the default) or Streamable HTTP on a loopback address. */
	transport?: McpServerTransportOption;
	/** stdin for the stdio transport. Default: `process.stdin`. */
	stdin?: Readable;
	/** stdout for the stdio transport; only protocol messages are written to it. Default: `process.stdout`. */
	stdout?: Writable;
	/**
	 * The largest message read, in bytes (a stdio line or an HTTP body). A larger one is answered
	 * with a JSON-RPC error (HTTP: status 413) without being buffered, and the server serves on.
	 * Default: 8 MiB (`DEFAULT_MAX_MESSAGE_BYTES`).
	 */
	maxMessageBytes?: number;
	/** Receives diagnostics (transport errors, ended idle sessions). Default: none. Never stdout. */
	log?: (message: string) => void;
	/** Most bytes of text the results of calls running together return, shared fairly (see `McpServerOptions.batchOutputBudget`). Default: none. */
	batchOutputBudget?: number;
	/** Opens the recording of each client's session at its first call (see `McpServerOptions.recordSession`). Default: none. */
	recordSession?: McpServerOptions["recordSession"];
	/**
	 * Runs once after the server stopped, every running call settled and the shell tools' background
	 * processes were ended. Default: none.
	 */
	onShutdown?: () => void | Promise<void>;
}

/** A running server. */
export interface RunningMcpServer {
	/** The Streamable HTTP endpoint, when serving HTTP. */
	url?: string;
	/** The bearer token clients must send, when serving HTTP with authentication (the default). */
	token?: string;
	/** The names of the tools served. */
	toolNames: string[];
	/** Resolves once the server has stopped: stdin reached EOF (stdio) or `close` was called. */
	closed: Promise<void>;
	/**
	 * Stops serving: aborts running calls (killing their process trees), ends the background
	 * processes the shell tools left running, then runs `onShutdown`. Idempotent.
	 */
	close(): Promise<void>;
}

/**
 * How long after the tools are made they start what their first call needs (a standby shell,
 * ripgrep's launcher; `ToolsOptions.prepareAfterMs`): past the handshake (`initialize`, then
 * `tools/list` at once), which would otherwise wait for their forks, and well before a client's
 * first call, which comes a model's reply later.
 */
export const MCP_PREPARE_AFTER_MS = 100;

function toolsToServe(options: RunMcpServerOptions, jobs: JobRegistry): AnyAgentTool[] {
	// One session of background jobs for the server's lifetime, shared by every client session.
	const toolsOptions: ToolsOptions = { prepareAfterMs: MCP_PREPARE_AFTER_MS, ...options.toolsOptions, jobs };
	return createSelectedTools(resolve(options.cwd), options, defaultToolNames, toolsOptions);
}

/**
 * Serves toolbelt's tools rooted at `cwd` over MCP: stdio by default (exits when stdin ends),
 * or Streamable HTTP on a loopback address, where every request must carry a bearer token (a
 * random one unless `transport.http.token` is given; `auth: false` opts out) and browser origins
 * are refused unless listed in `allowedOrigins`. Calls are scheduled by the engine: a sequential
 * tool is a barrier, edits of one file queue, parallel tools overlap.
 *
 * @example
 * const server = await runMcpServer({ cwd: "/path/to/project", transport: { http: { host: "127.0.0.1", port: 8765 } } });
 * console.error(`claude mcp add --transport http toolbelt ${server.url} --header "Authorization: Bearer ${server.token}"`);
 * process.once("SIGTERM", () => void server.close());
 * await server.closed;
 */
export async function runMcpServer(options: RunMcpServerOptions): Promise<RunningMcpServer> {
	const jobs = options.toolsOptions?.jobs ?? createJobRegistry();
	const tools = toolsToServe(options, jobs);
	const transport = options.transport ?? "stdio";
	const log = options.log;
	const serverOptions = {
		tools,
		log,
		beforeToolCall: options.beforeToolCall,
		afterToolCall: options.afterToolCall,
		...(options.recordSession ? { recordSession: options.recordSession } : {}),
		...(options.batchOutputBudget !== undefined ? { batchOutputBudget: options.batchOutputBudget } : {}),
		instructions:
			`Coding tools rooted at ${resolve(options.cwd)}: relative paths resolve there. ` +
			"Read before editing; prefer edit over write for existing files.",
	};
	let resolveClosed: () => void = () => {};
	const closed = new Promise<void>((resolveDone) => {
		resolveClosed = resolveDone;
	});
	let stopping: Promise<void> | undefined;
	const stopWith = (stopServing: () => Promise<void>) => () => {
		stopping ??= (async () => {
			try {
				await stopServing();
			} finally {
				await jobs.dispose().catch(() => {});
				await disposeShellProcesses().catch(() => {});
				await Promise.resolve(options.onShutdown?.()).catch(() => {});
				resolveClosed();
			}
		})();
		return stopping;
	};

	if (transport === "stdio") {
		const stdin = options.stdin ?? process.stdin;
		const mcp = createMcpServer(serverOptions);
		const stdout = options.stdout ?? process.stdout;
		const close = stopWith(() => mcp.close());
		// A client that went away makes stdout fail (EPIPE): shut down cleanly instead of crashing.
		stdout.on("error", (error) => {
			log?.(`mcp: stdout failed (${error.message}); shutting down.`);
			void close();
		});
		// The transport closes when stdin ends: a client closing our stdin means "exit".
		mcp.server.onclose = () => void close();
		await mcp.connect(new BoundedStdioServerTransport(stdin, stdout, { maxMessageBytes: options.maxMessageBytes }));
		return { toolNames: tools.map((tool) => tool.name), closed, close };
	}

	// Loaded only for HTTP: the Streamable HTTP transport and its web-server adapter cost a stdio start time.
	const { startMcpHttpServer } = await import("./http-server.js");
	const http = await startMcpHttpServer({
		...transport.http,
		maxMessageBytes: options.maxMessageBytes,
		createSession: () => createMcpServer(serverOptions),
		log,
	});
	return {
		url: http.url,
		token: http.token,
		toolNames: tools.map((tool) => tool.name),
		closed,
		close: stopWith(() => http.close()),
	};
}
