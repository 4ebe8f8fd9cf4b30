import { resolve } from "node:path";
import type { Readable, Writable } from "node:stream";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { AnyAgentTool, ToolHooks } from "../engine/types.js";
import { allToolNames, createTool, readOnlyToolNames, type ToolName, type ToolsOptions } from "../tools/index.js";
import { disposeShellProcesses } from "../tools/shell/background-registry.js";
import { startMcpHttpServer } from "./http-server.js";
import { createMcpServer } from "./server.js";

/** Where `runMcpServer` listens. */
export type McpServerTransportOption = "stdio" | { http: { host: string; port: number } };

/** Options of `runMcpServer`. */
export interface RunMcpServerOptions extends ToolHooks {
	/** The directory the tools are rooted at (relative paths resolve against it). */
	cwd: string;
	/** Which built-in tools to serve. Default: all of them. */
	tools?: readonly ToolName[];
	/** Serve only read, grep, find and ls (overrides `tools`). Default: false. */
	readOnly?: boolean;
	/** Per-tool options (timeouts, budgets, operations). Default: none. */
	toolsOptions?: ToolsOptions;
	/** Extra tools served next to the built-in ones (e.g. from an embedding application). Default: none. */
	extraTools?: readonly AnyAgentTool[];
	/** `stdio` (the default) or Streamable HTTP on a loopback address. */
	transport?: McpServerTransportOption;
	/** stdin for the stdio transport. Default: `process.stdin`. */
	stdin?: Readable;
	/** stdout for the stdio transport; only protocol messages are written to it. Default: `process.stdout`. */
	stdout?: Writable;
	/** Receives diagnostics (the HTTP URL, transport errors). Default: none. Never stdout. */
	log?: (message: string) => void;
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

function toolsToServe(options: RunMcpServerOptions): AnyAgentTool[] {
	const names = options.readOnly ? readOnlyToolNames : (options.tools ?? allToolNames);
	const cwd = resolve(options.cwd);
	return [...names.map((name) => createTool(name, cwd, options.toolsOptions)), ...(options.extraTools ?? [])];
}

/**
 * Serves toolbelt's tools rooted at `cwd` over MCP: stdio by default (exits when stdin ends),
 * or Streamable HTTP on a loopback address. Calls are scheduled by the engine: a sequential tool
 * is a barrier, edits of one file queue, parallel tools overlap.
 */
export async function runMcpServer(options: RunMcpServerOptions): Promise<RunningMcpServer> {
	const tools = toolsToServe(options);
	const transport = options.transport ?? "stdio";
	const log = options.log;
	const serverOptions = {
		tools,
		log,
		beforeToolCall: options.beforeToolCall,
		afterToolCall: options.afterToolCall,
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
		// The SDK's stdio transport does not notice EOF; a client closing our stdin means "exit".
		stdin.once("end", () => void close());
		stdin.once("close", () => void close());
		await mcp.connect(new StdioServerTransport(stdin, stdout));
		mcp.server.onclose = () => void close();
		return { toolNames: tools.map((tool) => tool.name), closed, close };
	}

	const http = await startMcpHttpServer({
		host: transport.http.host,
		port: transport.http.port,
		createSession: () => createMcpServer(serverOptions),
		log,
	});
	log?.(`toolbelt MCP server listening on ${http.url}`);
	return { url: http.url, toolNames: tools.map((tool) => tool.name), closed, close: stopWith(() => http.close()) };
}
