// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are ${VAR} placeholders the config loader expands.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadMcpConfig, McpConfigError, parseMcpConfig } from "../../src/mcp/client/config.js";
import { useTempDir } from "../helpers/temp-dir.js";

describe("parseMcpConfig", () => {
	it("reads Claude Desktop / Claude Code entries: stdio, http and sse", () => {
		const servers = parseMcpConfig({
			mcpServers: {
				files: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"], env: { DEBUG: "1" } },
				remote: { type: "http", url: "http://127.0.0.1:9000/mcp", headers: { Authorization: "Bearer x" } },
				legacy: { type: "sse", url: "http://127.0.0.1:9001/sse" },
				plainUrl: { url: "http://127.0.0.1:9002/mcp" },
				off: { command: "nope", disabled: true },
			},
		});
		expect(servers).toEqual({
			files: {
				type: "stdio",
				command: "npx",
				args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
				env: { DEBUG: "1" },
			},
			remote: { type: "http", url: "http://127.0.0.1:9000/mcp", headers: { Authorization: "Bearer x" } },
			legacy: { type: "sse", url: "http://127.0.0.1:9001/sse", headers: {} },
			plainUrl: { type: "http", url: "http://127.0.0.1:9002/mcp", headers: {}, sseFallback: true },
		});
	});

	it("expands ${VAR} and ${VAR:-default}, and names an unset variable", () => {
		const env = { TOKEN: "secret", HOME: "/home/me" };
		const servers = parseMcpConfig(
			{
				mcpServers: {
					a: { command: "${HOME}/bin/server", args: ["--port", "${PORT:-8080}"], env: { API_TOKEN: "${TOKEN}" } },
				},
			},
			{ env },
		);
		expect(servers.a).toMatchObject({
			command: "/home/me/bin/server",
			args: ["--port", "8080"],
			env: { API_TOKEN: "secret" },
		});
		expect(() => parseMcpConfig({ mcpServers: { a: { command: "${MISSING}" } } }, { env })).toThrow(
			"MISSING is not set",
		);
	});

	it("rejects malformed entries with the entry named", () => {
		expect(() => parseMcpConfig({})).toThrow(McpConfigError);
		expect(() => parseMcpConfig({ mcpServers: { x: { command: "a", args: "b" } } })).toThrow(
			"mcpServers.x.args must be an array of strings",
		);
		expect(() => parseMcpConfig({ mcpServers: { x: { type: "http" } } })).toThrow('mcpServers.x needs a "url"');
		expect(() => parseMcpConfig({ mcpServers: { x: { url: "not a url" } } })).toThrow("not a valid URL");
	});
});

describe("loadMcpConfig", () => {
	const tempDir = useTempDir();

	it("resolves a relative cwd against the file's directory and reports bad JSON", async () => {
		const path = join(tempDir(), "mcp.json");
		await writeFile(path, JSON.stringify({ mcpServers: { a: { command: "node", cwd: "sub" } } }));
		expect((await loadMcpConfig(path)).a).toMatchObject({ cwd: join(tempDir(), "sub") });
		await writeFile(path, "{ nope");
		await expect(loadMcpConfig(path)).rejects.toThrow(`MCP config ${path} is not valid JSON`);
		await expect(loadMcpConfig(join(tempDir(), "missing.json"))).rejects.toThrow("Cannot read MCP config");
	});
});
