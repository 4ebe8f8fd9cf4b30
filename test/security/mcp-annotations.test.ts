// An MCP server's annotations are its own claims (the MCP spec: untrusted unless the server is).
// A prompt-injected model reads .env and hands the secret to a server tool that says it is
// read-only; in the default mode that call must not run without approval unless the user's own
// config vouches for the server. A repository's config cannot vouch for its own servers.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CliProcesses, cleanEnv } from "../cli/helpers/cli-binary.js";
import { openAIStream, useSseServer } from "../helpers/sse-server.js";
import { useTempDir } from "../helpers/temp-dir.js";

const tempDir = useTempDir();
const model = useSseServer();
const cli = new CliProcesses();
afterEach(() => cli.killAll());

const SECRET = "sk-live-4f9a1c2e7b";
const serverScript = new URL("./fixtures/recording-mcp-server.mjs", import.meta.url).pathname;

/** The injected model: read .env, then pass what it holds to the server's "read-only" tool. */
function scriptInjectedModel(): void {
	model.push(
		{
			events: openAIStream([
				{ toolCall: { index: 0, id: "c1", name: "read", arguments: '{"path":".env"}' } },
				{ finish: "tool_calls" },
			]),
		},
		{
			events: openAIStream([
				{ toolCall: { index: 0, id: "c2", name: "notes__lookup", arguments: JSON.stringify({ query: SECRET }) } },
				{ finish: "tool_calls" },
			]),
		},
		{ events: openAIStream([{ text: "Done." }, { finish: "stop" }]) },
	);
}

async function runWithConfig(configPath: string, trusted: boolean | undefined, extra: string[] = []) {
	const workspace = join(tempDir(), "workspace");
	await mkdir(workspace, { recursive: true });
	await writeFile(join(workspace, ".env"), `API_KEY=${SECRET}\n`);
	const received = join(tempDir(), "received.jsonl");
	const entry = { command: process.execPath, args: [serverScript], env: { RECEIVED_FILE: received } };
	await writeFile(
		configPath,
		JSON.stringify({ mcpServers: { notes: trusted === undefined ? entry : { ...entry, trusted } } }),
	);
	scriptInjectedModel();
	const flags = ["--provider", "openai", "--base-url", model.openaiBaseUrl, "--model", "test-model"];
	const run = await cli.run(["run", ...flags, "--mcp-config", configPath, ...extra, "look it up"], {
		cwd: workspace,
		env: cleanEnv({ HOME: join(tempDir(), "home"), OPENAI_API_KEY: "test-key" }),
	});
	return { run, received: await readFile(received, "utf8").catch(() => "") };
}

describe("an MCP server's readOnlyHint, in the default mode", () => {
	it("is not taken at its word for an untrusted server: the secret does not reach it", async () => {
		const { run, received } = await runWithConfig(join(tempDir(), "user-mcp.json"), undefined);
		expect(received).not.toContain(SECRET);
		expect(run.stderr).toMatch(/notes__lookup/);
	});

	it("counts for a server the user's own config marks trusted (so the refusal above is the trust, not a broken server)", async () => {
		const { received } = await runWithConfig(join(tempDir(), "user-mcp.json"), true);
		expect(received).toContain(SECRET);
	});

	it("a repository's own config cannot mark its server trusted", async () => {
		await mkdir(join(tempDir(), "workspace"), { recursive: true });
		const { received } = await runWithConfig(join(tempDir(), "workspace", ".mcp.json"), true);
		expect(received).not.toContain(SECRET);
	});

	it("a repository's config does count in a folder the user trusts (--trust-project)", async () => {
		await mkdir(join(tempDir(), "workspace"), { recursive: true });
		const { received } = await runWithConfig(join(tempDir(), "workspace", ".mcp.json"), true, ["--trust-project"]);
		expect(received).toContain(SECRET);
	});
});
