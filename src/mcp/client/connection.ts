import type { Readable } from "node:stream";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type CallToolResult, ErrorCode, McpError, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { AbortError } from "../../engine/index.js";
import { type ClientSdk, loadClientSdk } from "../sdk-transports.js";
import type { McpServerConfig } from "./config.js";

/** Default time to start a server and finish the MCP handshake, in ms. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
/** Default time a tool call may go without an answer or a progress notification, in ms. */
export const DEFAULT_CALL_TIMEOUT_MS = 120_000;
/** Default time a tool call may take in all, progress or not, in ms. */
export const DEFAULT_CALL_MAX_TOTAL_MS = 30 * 60_000;

const STDERR_TAIL_LINES = 20;

/** Options of `McpConnection`. */
export interface McpConnectionOptions {
	/** The server's name in the config; used in every message. */
	name: string;
	/** How to reach it. */
	config: McpServerConfig;
	/** Time to connect and initialise, in ms. Default: `DEFAULT_CONNECT_TIMEOUT_MS` (30 s). */
	connectTimeoutMs?: number;
	/** Client name and version announced to the server. Default: `toolbelt` `0.1.0`. */
	clientInfo?: { name: string; version: string };
}

/** Options of one `McpConnection.callTool`. */
export interface McpCallOptions {
	/** Cancels the call; the server gets `notifications/cancelled`. */
	signal?: AbortSignal;
	/** Time without an answer or progress before the call fails, in ms. Default: `DEFAULT_CALL_TIMEOUT_MS` (120 s). */
	timeoutMs?: number;
	/**
	 * Time the call may take in all, in ms: progress notifications reset `timeoutMs`, never this, so a
	 * server that reports progress forever is still cancelled. Default: `DEFAULT_CALL_MAX_TOTAL_MS` (30 min).
	 */
	maxTotalMs?: number;
	/** Receives the server's progress notifications. Asking for them sends a progress token. */
	onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
}

class ConnectTimeoutError extends Error {}

function seconds(ms: number): string {
	return `${Math.round(ms / 100) / 10} s`;
}

/**
 * One MCP server as seen from the client side: connects (with a timeout), lists its tools, calls
 * them (with a timeout and cancellation), reconnects once on demand after the server went away,
 * and turns every failure into a message that says which server failed and what to do.
 */
export class McpConnection {
	/** The server's name in the config. */
	readonly name: string;
	private readonly config: McpServerConfig;
	private readonly connectTimeoutMs: number;
	private readonly clientInfo: { name: string; version: string };
	private client: Client | undefined;
	private connecting: Promise<Client> | undefined;
	private closedByUs = false;
	private readonly stderrTail: string[] = [];
	private lastDisconnect: string | undefined;

	constructor(options: McpConnectionOptions) {
		this.name = options.name;
		this.config = options.config;
		this.connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
		this.clientInfo = options.clientInfo ?? { name: "toolbelt", version: "0.1.0" };
	}

	/** Connects if not connected. Throws a model- and human-readable error on failure or timeout. */
	connect(): Promise<Client> {
		if (this.client) return Promise.resolve(this.client);
		if (this.closedByUs) return Promise.reject(new Error(`MCP server "${this.name}" was closed.`));
		this.connecting ??= this.open().finally(() => {
			this.connecting = undefined;
		});
		return this.connecting;
	}

	/** Every tool the server offers (all pages). */
	async listTools(): Promise<Tool[]> {
		const client = await this.connect();
		const tools: Tool[] = [];
		let cursor: string | undefined;
		do {
			const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: this.connectTimeoutMs });
			tools.push(...page.tools);
			cursor = page.nextCursor;
		} while (cursor);
		return tools;
	}

	/** Calls one tool. Rejects with `AbortError` when cancelled and with a clear `Error` on any failure. */
	async callTool(tool: string, args: Record<string, unknown>, options: McpCallOptions = {}): Promise<CallToolResult> {
		const timeoutMs = options.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
		const maxTotalMs = options.maxTotalMs ?? DEFAULT_CALL_MAX_TOTAL_MS;
		const client = await this.connect();
		// Our own signal, not the SDK's maxTotalTimeout: an abort also tells the server to stop.
		const total = new AbortController();
		const timer = setTimeout(() => total.abort(), maxTotalMs);
		try {
			const result = await client.callTool({ name: tool, arguments: args }, undefined, {
				signal: options.signal ? AbortSignal.any([options.signal, total.signal]) : total.signal,
				timeout: timeoutMs,
				resetTimeoutOnProgress: true,
				...(options.onProgress ? { onprogress: options.onProgress } : {}),
			});
			return result as CallToolResult;
		} catch (error) {
			if (total.signal.aborted && !options.signal?.aborted) {
				throw new Error(
					`MCP server "${this.name}", tool "${tool}": still running after ${seconds(maxTotalMs)} in all, so the call was cancelled. ` +
						"Try a smaller request, or use another tool.",
				);
			}
			throw this.explain(error, tool, timeoutMs, options.signal);
		} finally {
			clearTimeout(timer);
		}
	}

	/** Ends the connection; a stdio server's process is terminated (SIGTERM, then SIGKILL). */
	async close(): Promise<void> {
		this.closedByUs = true;
		const client = this.client ?? (await this.connecting?.catch(() => undefined));
		this.client = undefined;
		await client?.close().catch(() => {});
	}

	private createTransport(sdk: ClientSdk, legacySse = false): Transport {
		const { config } = this;
		if (config.type === "stdio") {
			const transport = new sdk.StdioClientTransport({
				command: config.command,
				args: config.args,
				env: config.env,
				cwd: config.cwd,
				stderr: "pipe",
			});
			(transport.stderr as Readable | null)?.on("data", (chunk: Buffer) => this.recordStderr(chunk.toString("utf8")));
			return transport;
		}
		const requestInit = { headers: config.headers };
		const url = new URL(config.url);
		return config.type === "sse" || legacySse
			? new sdk.SSEClientTransport(url, { requestInit })
			: new sdk.StreamableHTTPClientTransport(url, { requestInit });
	}

	private recordStderr(text: string): void {
		for (const line of text.split("\n")) {
			if (line.trim() === "") continue;
			this.stderrTail.push(line.length > 500 ? `${line.slice(0, 500)}…` : line);
			if (this.stderrTail.length > STDERR_TAIL_LINES) this.stderrTail.shift();
		}
	}

	private stderrNote(): string {
		return this.stderrTail.length > 0 ? `\nLast lines the server wrote to stderr:\n${this.stderrTail.join("\n")}` : "";
	}

	private async open(): Promise<Client> {
		const { config } = this;
		const sdk = await loadClientSdk();
		try {
			return await this.attempt(sdk, this.createTransport(sdk));
		} catch (error) {
			if (config.type !== "http" || !config.sseFallback || error instanceof ConnectTimeoutError) throw error;
			// A url without a type may be a server that only speaks the legacy SSE transport.
			return await this.attempt(sdk, this.createTransport(sdk, true)).catch(() => {
				throw error;
			});
		}
	}

	private async attempt(sdk: ClientSdk, transport: Transport): Promise<Client> {
		const client = new sdk.Client(this.clientInfo, { capabilities: {} });
		let timer: NodeJS.Timeout | undefined;
		const timeout = new Promise<never>((_resolve, reject) => {
			timer = setTimeout(
				() =>
					reject(
						new ConnectTimeoutError(
							`MCP server "${this.name}" did not finish connecting within ${seconds(this.connectTimeoutMs)}.${this.stderrNote()}`,
						),
					),
				this.connectTimeoutMs,
			);
		});
		try {
			await Promise.race([client.connect(transport, { timeout: this.connectTimeoutMs }), timeout]);
		} catch (error) {
			await client.close().catch(() => {});
			await transport.close().catch(() => {});
			const message = error instanceof Error ? error.message : String(error);
			if (message.startsWith(`MCP server "${this.name}"`)) throw error;
			throw new Error(`MCP server "${this.name}" could not be started or reached: ${message}${this.stderrNote()}`);
		} finally {
			clearTimeout(timer);
		}
		client.onclose = () => {
			if (this.client === client) this.client = undefined;
			if (!this.closedByUs) this.lastDisconnect = `the connection closed${this.describeExit()}`;
		};
		this.client = client;
		return client;
	}

	private describeExit(): string {
		return this.config.type === "stdio" ? " (the server process exited)" : "";
	}

	private explain(error: unknown, tool: string, timeoutMs: number, signal: AbortSignal | undefined): Error {
		if (signal?.aborted) return new AbortError(`The call to MCP tool "${tool}" was cancelled.`);
		const prefix = `MCP server "${this.name}", tool "${tool}"`;
		if (error instanceof McpError) {
			if (error.code === ErrorCode.RequestTimeout) {
				return new Error(
					`${prefix}: no answer within ${seconds(timeoutMs)}; the call was cancelled. The server may be hung or the task too long. ` +
						"Try again with a smaller request, or use another tool.",
				);
			}
			if (error.code === ErrorCode.ConnectionClosed) {
				return new Error(
					`${prefix}: the server closed the connection during the call${this.describeExit()}, so it probably crashed. ` +
						`The next call will restart it; if it fails again, stop using this server's tools.${this.stderrNote()}`,
				);
			}
			return new Error(`${prefix}: the server rejected the call: ${error.message}`);
		}
		const message = error instanceof Error ? error.message : String(error);
		return new Error(`${prefix}: the call failed: ${message}${this.stderrNote()}`);
	}

	/** Why the previous connection ended, if it ended unexpectedly. */
	get disconnectReason(): string | undefined {
		return this.lastDisconnect;
	}
}
