import { randomInt } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, ensureBuiltCli } from "../cli/helpers/cli-binary.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { killProcessesWithArgument, processesWithArgument } from "../tools/shell/survivors.js";

/**
 * Background jobs may not become a way out of the session: a job that hides in a new session
 * with a cleared environment, or that ignores SIGTERM, still ends when the MCP client goes away.
 */

async function waitUntil(check: () => boolean, timeoutMs: number): Promise<boolean> {
	const deadline = Date.now() + timeoutMs;
	while (!check() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
	return check();
}

const needles: string[] = [];
afterEach(() => {
	for (const needle of needles.splice(0)) killProcessesWithArgument(needle);
});

beforeAll(() => {
	ensureBuiltCli();
});

describe.skipIf(process.platform !== "linux")("background jobs end with the MCP session", () => {
	const tempDir = useTempDir();

	it("a job's setsid env -i child and a TERM-ignoring job die when the client disconnects", {
		timeout: 60_000,
	}, async () => {
		const sleep = `sleep 300.${randomInt(1_000_000, 9_999_999)}`;
		needles.push(sleep);
		const binary = ensureBuiltCli();
		const transport = new StdioClientTransport({
			command: process.execPath,
			args: [binary, "mcp", "--cwd", tempDir()],
			env: cleanEnv(),
			stderr: "pipe",
		});
		const client = new Client({ name: "jobs-red-team", version: "1.0.0" });
		await client.connect(transport);
		try {
			const command = `setsid env -i ${sleep} & trap '' TERM; while true; do ${sleep} ; done`;
			const started = await client.callTool(
				{ name: "bash", arguments: { command, run_in_background: true, timeout: 30 } },
				undefined,
				{ timeout: 20_000 },
			);
			expect(started.isError).toBeFalsy();
			expect(await waitUntil(() => processesWithArgument(sleep).length >= 2, 5000)).toBe(true);
		} finally {
			await client.close();
		}
		expect(await waitUntil(() => processesWithArgument(sleep).length === 0, 10_000)).toBe(true);
	});
});
