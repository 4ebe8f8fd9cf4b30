import { spawn } from "node:child_process";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { freePort } from "../helpers/loopback.js";
import { openAIStream, useSseServer } from "../helpers/sse-server.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { ensureBuiltCli } from "../mcp/helpers.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
/** Longest a script may live; a run that leaves a timer, socket or child behind outlives it. */
const KILL_AFTER_MS = 30_000;

/** The README's Library API example, verbatim: the first TypeScript block of that section. */
async function readmeLibraryExample(): Promise<string> {
	const readme = await readFile(join(root, "README.md"), "utf8");
	const section = readme.slice(readme.indexOf("## Library API"));
	const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
	if (!block) throw new Error("README.md has no TypeScript block under ## Library API");
	return block;
}

interface ScriptRun {
	/** Null when the script was killed. */
	exitCode: number | null;
	killed: boolean;
	stdout: string;
	stderr: string;
}

/** Runs `node example.mjs` in `dir` with `env`; kills it after `KILL_AFTER_MS`. */
function runScript(dir: string, env: Record<string, string>): Promise<ScriptRun> {
	return new Promise((resolve) => {
		const child = spawn(process.execPath, ["example.mjs"], { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"] });
		let stdout = "";
		let stderr = "";
		let killed = false;
		child.stdout.on("data", (chunk: Buffer) => {
			stdout += chunk.toString("utf8");
		});
		child.stderr.on("data", (chunk: Buffer) => {
			stderr += chunk.toString("utf8");
		});
		const timer = setTimeout(() => {
			killed = true;
			child.kill("SIGKILL");
		}, KILL_AFTER_MS);
		child.once("close", (exitCode) => {
			clearTimeout(timer);
			resolve({ exitCode, killed, stdout, stderr });
		});
	});
}

describe("the README's Library API example as a script", () => {
	const dir = useTempDir();
	const server = useSseServer();

	/** A project importing the built package as `toolbelt`, with a TODO to find. */
	async function project(): Promise<Record<string, string>> {
		ensureBuiltCli();
		await mkdir(join(dir(), "node_modules"));
		await symlink(root, join(dir(), "node_modules", "toolbelt"), "dir");
		await mkdir(join(dir(), "src"));
		await writeFile(join(dir(), "src", "a.ts"), "// TODO: say hello\n");
		await writeFile(join(dir(), "example.mjs"), await readmeLibraryExample());
		return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir() };
	}

	it("ends by itself after prompt() against an OpenAI-compatible server, tool calls included", async () => {
		const env = await project();
		server.push(
			{
				events: openAIStream([
					{ toolCall: { index: 0, id: "call_1", name: "bash", arguments: '{"command":"grep -rn TODO src"}' } },
					{ finish: "tool_calls" },
				]),
			},
			{ events: openAIStream([{ text: "Found the TODO in src/a.ts." }, { finish: "stop" }]) },
		);
		const run = await runScript(dir(), { ...env, OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: server.openaiBaseUrl });
		expect(run.killed).toBe(false);
		expect(run.exitCode).toBe(0);
		expect(run.stdout).toContain("Found the TODO in src/a.ts.");
		expect(run.stdout).toContain("bash ✓");
		expect(server.requests).toHaveLength(2);
	}, 60_000);

	it("ends by itself after a refused connection, printing the error", async () => {
		const env = await project();
		const closedPort = await freePort();
		const run = await runScript(dir(), {
			...env,
			OPENAI_API_KEY: "test-key",
			OPENAI_BASE_URL: `http://127.0.0.1:${closedPort}/v1`,
		});
		expect(run.killed).toBe(false);
		expect(run.exitCode).toBe(0);
		expect(run.stderr).toContain(`127.0.0.1:${closedPort}`);
	}, 60_000);

	it("prints the error when there is no key", async () => {
		const env = await project();
		const run = await runScript(dir(), env);
		expect(run.killed).toBe(false);
		expect(run.exitCode).toBe(0);
		expect(run.stderr).toContain("OPENAI_API_KEY");
	}, 60_000);
});
