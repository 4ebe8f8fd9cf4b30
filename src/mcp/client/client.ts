import type { AnyAgentTool } from "../../engine/index.js";
import { createMcpAgentTool } from "./client-tools.js";
import { loadMcpConfig, type McpServerConfig } from "./config.js";
import { McpConnection } from "./connection.js";
import type { SchemaDialect } from "./normalize.js";

/** Options of `connectMcpServers` and `loadMcpTools`. */
export interface McpClientOptions {
	/** Schema dialect of the model API the tools are for. Default: `openai` (also fine for Anthropic). */
	dialect?: SchemaDialect;
	/** Time to start and initialise each server, in ms. Default: 30,000. */
	connectTimeoutMs?: number;
	/** Time a call may go without an answer or progress, in ms. Default: 120,000. */
	callTimeoutMs?: number;
	/** Most time a call may take in all, progress or not, in ms. Default: 30 minutes. */
	callMaxTotalMs?: number;
	/** Most UTF-8 bytes of text per result. Default: 50 KB. */
	maxBytes?: number;
	/** Most lines of text per result. Default: 2,000. */
	maxLines?: number;
	/** Variables for `${VAR}` expansion in the config file. Default: `process.env`. */
	env?: NodeJS.ProcessEnv;
	/**
	 * Whether the config's `"trusted": true` marks count. Pass false for a config the user did not
	 * write themselves, e.g. a repository's `.mcp.json` in a folder the user has not trusted: it
	 * cannot vouch for its own servers. Default: true.
	 */
	honorTrusted?: boolean;
	/** Receives one line per server that could not be used (also returned in `servers`). Default: none. */
	onWarning?: (message: string) => void;
}

/** How one configured server fared. */
export interface McpServerStatus {
	/** Its name in the config. */
	name: string;
	/** Names of the AgentTools it contributed. Empty when it failed. */
	tools: string[];
	/** Why it could not be used, when it failed. */
	error?: string;
}

/** External MCP servers' tools, ready for the agent, and the means to shut the servers down. */
export interface McpTools {
	/** One AgentTool per server tool, named `<server>__<tool>`. */
	tools: AnyAgentTool[];
	/** One entry per configured server, in config order. */
	servers: McpServerStatus[];
	/** Closes every connection and ends every server process this started. Idempotent. */
	close(): Promise<void>;
}

/**
 * Connects to every configured server in parallel and turns their tools into AgentTools. A server
 * that cannot be started, times out or fails to list its tools is reported in `servers` (and via
 * `onWarning`) and skipped; the others still load.
 */
export async function connectMcpServers(
	servers: Record<string, McpServerConfig>,
	options: McpClientOptions = {},
): Promise<McpTools> {
	const connections = Object.entries(servers).map(
		([name, config]) => new McpConnection({ name, config, connectTimeoutMs: options.connectTimeoutMs }),
	);
	const trusted = (name: string) => options.honorTrusted !== false && servers[name]?.trusted === true;
	const loaded = await Promise.all(
		connections.map(async (connection): Promise<{ status: McpServerStatus; tools: AnyAgentTool[] }> => {
			try {
				const listed = await connection.listTools();
				const tools = listed.map((tool) =>
					createMcpAgentTool({
						connection,
						tool,
						dialect: options.dialect,
						callTimeoutMs: options.callTimeoutMs,
						callMaxTotalMs: options.callMaxTotalMs,
						maxBytes: options.maxBytes,
						maxLines: options.maxLines,
						trusted: trusted(connection.name),
					}),
				);
				return { status: { name: connection.name, tools: tools.map((tool) => tool.name) }, tools };
			} catch (error) {
				await connection.close();
				const message = error instanceof Error ? error.message : String(error);
				options.onWarning?.(message);
				return { status: { name: connection.name, tools: [], error: message }, tools: [] };
			}
		}),
	);
	const tools: AnyAgentTool[] = [];
	const seen = new Set<string>();
	for (const { status, tools: serverTools } of loaded) {
		status.tools = [];
		for (const tool of serverTools) {
			// Two names can collide after normalisation (`a.b` and `a_b`); the first keeps it.
			if (seen.has(tool.name)) {
				options.onWarning?.(`MCP server "${status.name}": tool name ${tool.name} is taken; this tool is skipped.`);
				continue;
			}
			seen.add(tool.name);
			status.tools.push(tool.name);
			tools.push(tool);
		}
	}
	let closing: Promise<void> | undefined;
	return {
		tools,
		servers: loaded.map(({ status }) => status),
		close() {
			closing ??= Promise.all(connections.map((connection) => connection.close())).then(() => undefined);
			return closing;
		},
	};
}

/**
 * Reads an `mcpServers` config file (Claude Desktop / Claude Code / Cursor format) and connects
 * to its servers; see `connectMcpServers`. Throws `McpConfigError` for an unusable file.
 */
export async function loadMcpTools(configPath: string, options: McpClientOptions = {}): Promise<McpTools> {
	const servers = await loadMcpConfig(configPath, { env: options.env });
	return connectMcpServers(servers, options);
}
