import { readFile } from "node:fs/promises";
import { dirname, isAbsolute, resolve } from "node:path";

/** An MCP server started as a child process and spoken to over its stdin/stdout. */
export interface McpStdioServerConfig {
	type: "stdio";
	/** The executable, e.g. `npx` or `node`. */
	command: string;
	/** Its arguments. Default: none. */
	args: string[];
	/** Extra environment variables, added to a minimal safe environment (PATH, HOME, …). */
	env: Record<string, string>;
	/** Working directory of the child. Default: the current one. */
	cwd?: string;
}

/** An MCP server reached over HTTP: Streamable HTTP (`http`) or the legacy SSE transport (`sse`). */
export interface McpRemoteServerConfig {
	type: "http" | "sse";
	/** The endpoint, e.g. `http://127.0.0.1:8080/mcp`. */
	url: string;
	/** Extra request headers, e.g. `Authorization`. Default: none. */
	headers: Record<string, string>;
	/**
	 * Try the legacy SSE transport when Streamable HTTP fails. Set for a `url` given without a
	 * `type` (as Cursor configs do), where either transport may be meant. Default: false.
	 */
	sseFallback?: boolean;
}

/** What every configured server may carry besides how to reach it. */
export interface McpServerTrust {
	/**
	 * The config's `"trusted": true`: the server's tool annotations (`readOnlyHint`,
	 * `destructiveHint`…) may decide how the safety layer treats its tools. Without it (the MCP
	 * spec: annotations from untrusted servers are untrusted) every tool of the server counts as
	 * "execute", so the default mode asks. Counts only where `loadMcpTools` is told the file may
	 * vouch for servers (`honorTrusted`: a project's own config only in a trusted folder). Default: false.
	 */
	trusted?: boolean;
}

/** One configured server. */
export type McpServerConfig = (McpStdioServerConfig | McpRemoteServerConfig) & McpServerTrust;

/** Thrown for a config file that cannot be used; the message names the file and the fault. */
export class McpConfigError extends Error {
	constructor(message: string) {
		super(message);
		this.name = "McpConfigError";
	}
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Expands `${VAR}` and `${VAR:-default}` as Claude Code does in `.mcp.json`, so one config can be
 * shared without committing secrets. An unset variable without a default is an error.
 */
function expand(text: string, env: NodeJS.ProcessEnv, where: string): string {
	return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_match, name: string, fallback?: string) => {
		const value = env[name];
		if (value !== undefined && value !== "") return value;
		if (fallback !== undefined) return fallback;
		throw new McpConfigError(`${where} uses \${${name}}, but ${name} is not set and has no default (\${${name}:-…}).`);
	});
}

function stringRecord(value: unknown, where: string, env: NodeJS.ProcessEnv): Record<string, string> {
	if (value === undefined) return {};
	if (!isRecord(value)) throw new McpConfigError(`${where} must be an object of strings.`);
	const result: Record<string, string> = {};
	for (const [key, entry] of Object.entries(value)) {
		if (typeof entry !== "string" && typeof entry !== "number" && typeof entry !== "boolean") {
			throw new McpConfigError(`${where}.${key} must be a string.`);
		}
		result[key] = expand(String(entry), env, `${where}.${key}`);
	}
	return result;
}

/** Options of `parseMcpConfig`. */
export interface ParseMcpConfigOptions {
	/** Variables for `${VAR}` expansion. Default: `process.env`. */
	env?: NodeJS.ProcessEnv;
	/** Where relative `cwd` entries are resolved from. Default: `process.cwd()`. */
	baseDir?: string;
	/** Named in error messages. Default: `MCP config`. */
	source?: string;
}

function parseServer(name: string, raw: unknown, options: Required<ParseMcpConfigOptions>): McpServerConfig {
	const where = `${options.source}: mcpServers.${name}`;
	if (!isRecord(raw)) throw new McpConfigError(`${where} must be an object.`);
	if (raw.trusted !== undefined && typeof raw.trusted !== "boolean")
		throw new McpConfigError(`${where}.trusted must be true or false.`);
	const server = parseTransport(where, raw, options);
	return raw.trusted === true ? { ...server, trusted: true } : server;
}

function parseTransport(
	where: string,
	raw: Record<string, unknown>,
	options: Required<ParseMcpConfigOptions>,
): McpStdioServerConfig | McpRemoteServerConfig {
	const { env, baseDir } = options;
	const type = raw.type ?? raw.transport;
	if (typeof raw.url === "string" || type === "http" || type === "sse" || type === "streamable-http") {
		if (typeof raw.url !== "string" || raw.url === "") throw new McpConfigError(`${where} needs a "url".`);
		const url = expand(raw.url, env, `${where}.url`);
		try {
			new URL(url);
		} catch {
			throw new McpConfigError(`${where}.url is not a valid URL: ${url}`);
		}
		const headers = stringRecord(raw.headers, `${where}.headers`, env);
		if (type === undefined) return { type: "http", url, headers, sseFallback: true };
		return { type: type === "sse" ? "sse" : "http", url, headers };
	}
	if (typeof raw.command !== "string" || raw.command.trim() === "") {
		throw new McpConfigError(`${where} needs a "command" (stdio server) or a "url" (HTTP server).`);
	}
	if (raw.args !== undefined && (!Array.isArray(raw.args) || raw.args.some((arg) => typeof arg !== "string"))) {
		throw new McpConfigError(`${where}.args must be an array of strings.`);
	}
	const args = ((raw.args as string[] | undefined) ?? []).map((arg, index) =>
		expand(arg, env, `${where}.args[${index}]`),
	);
	const config: McpStdioServerConfig = {
		type: "stdio",
		command: expand(raw.command, env, `${where}.command`),
		args,
		env: stringRecord(raw.env, `${where}.env`, env),
	};
	if (typeof raw.cwd === "string") {
		const cwd = expand(raw.cwd, env, `${where}.cwd`);
		config.cwd = isAbsolute(cwd) ? cwd : resolve(baseDir, cwd);
	}
	return config;
}

/**
 * Reads the `mcpServers` object that Claude Desktop, Claude Code (`.mcp.json`) and Cursor use:
 * `{ "mcpServers": { "<name>": { "command", "args", "env" } | { "type": "http" | "sse", "url", "headers" } } }`.
 * A top-level `servers` object (VS Code) is accepted too; entries with `"disabled": true` are skipped;
 * `"trusted": true` lets a server's tool annotations count (see `McpServerTrust`).
 * Throws `McpConfigError` with the offending entry named.
 */
export function parseMcpConfig(json: unknown, options: ParseMcpConfigOptions = {}): Record<string, McpServerConfig> {
	const resolved: Required<ParseMcpConfigOptions> = {
		env: options.env ?? process.env,
		baseDir: options.baseDir ?? process.cwd(),
		source: options.source ?? "MCP config",
	};
	if (!isRecord(json)) throw new McpConfigError(`${resolved.source} must be a JSON object with "mcpServers".`);
	const servers = json.mcpServers ?? json.servers;
	if (!isRecord(servers)) {
		throw new McpConfigError(`${resolved.source} has no "mcpServers" object (expected { "mcpServers": { … } }).`);
	}
	const result: Record<string, McpServerConfig> = {};
	for (const [name, raw] of Object.entries(servers)) {
		if (isRecord(raw) && raw.disabled === true) continue;
		result[name] = parseServer(name, raw, resolved);
	}
	return result;
}

/** Reads and parses an MCP config file; relative `cwd` entries are taken from the file's directory. */
export async function loadMcpConfig(
	path: string,
	options: Omit<ParseMcpConfigOptions, "baseDir" | "source"> = {},
): Promise<Record<string, McpServerConfig>> {
	let text: string;
	try {
		text = await readFile(path, "utf8");
	} catch (error) {
		throw new McpConfigError(`Cannot read MCP config ${path}: ${(error as Error).message}`);
	}
	let json: unknown;
	try {
		json = JSON.parse(text);
	} catch (error) {
		throw new McpConfigError(`MCP config ${path} is not valid JSON: ${(error as Error).message}`);
	}
	return parseMcpConfig(json, { ...options, baseDir: dirname(resolve(path)), source: path });
}
