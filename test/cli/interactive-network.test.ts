// The interactive session shows, under a sandboxed bash call, where its command connected through
// the network policy's proxy: the allowed host with its bytes, the refused one with why. A real
// terminal (tmux), the built CLI, a scripted model, bwrap and loopback HTTP servers under made-up
// names that only the proxy resolves.
import { mkdir, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxUnavailableReason } from "../helpers/prerequisites.js";
import { openAIStream, startSseServer } from "../helpers/sse-server.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { cleanEnv, ensureBuiltCli } from "./helpers/cli-binary.js";
import { TmuxTerminal } from "./helpers/tmux.js";

const unavailable = await sandboxUnavailableReason();

describe.skipIf(!TmuxTerminal.available() || unavailable !== undefined)(
	"interactive session: a sandboxed call's connections",
	{ timeout: 120_000 },
	() => {
		const tempDir = useTempDir();
		let web: Server;
		let port = 0;
		const paths: string[] = [];
		beforeAll(async () => {
			ensureBuiltCli();
			web = createServer((request, response) => {
				paths.push(`${request.headers.host} ${request.url}`);
				response.end("x".repeat(5000));
			});
			await new Promise<void>((resolve) => web.listen(0, "127.0.0.1", resolve));
			port = (web.address() as { port: number }).port;
		});
		afterAll(() => web?.close());

		it("lists the allowed and the refused destinations under the call", async () => {
			const home = join(tempDir(), "home");
			const project = join(tempDir(), "project");
			await mkdir(join(home, ".toolbelt"), { recursive: true });
			await mkdir(project);
			const network = {
				allow: ["good.test", `127.0.0.1:${port}`],
				deny: ["evil.test"],
				hosts: ["good.test=127.0.0.1", "evil.test=127.0.0.1"],
			};
			await writeFile(
				join(home, ".toolbelt", "settings.json"),
				JSON.stringify({ sandbox: { enabled: true, network } }),
			);
			const command = `curl -sS -m 20 http://good.test:${port}/a -o /dev/null; curl -sS -m 20 http://good.test:${port}/b -o /dev/null; curl -sS -m 20 http://evil.test:${port}/c`;
			const server = await startSseServer([
				{
					events: openAIStream([
						{ toolCall: { index: 0, id: "call_1", name: "bash", arguments: JSON.stringify({ command }) } },
						{ finish: "tool_calls" },
					]),
				},
				{ events: openAIStream([{ text: "Fetched." }, { finish: "stop" }]) },
			]);
			const env = cleanEnv({ HOME: home });
			delete env.NO_COLOR;
			const flags = ["--provider", "openai", "--base-url", server.openaiBaseUrl, "--model", "scripted-model"];
			const terminal = TmuxTerminal.start({
				command: [process.execPath, ensureBuiltCli(), ...flags, "--mode", "yolo"],
				cwd: project,
				env,
			});
			try {
				await terminal.waitFor(/^›\s*$/m);
				terminal.type("fetch it");
				terminal.press("Enter");
				const screen = await terminal.waitFor(/Fetched\./);
				if (process.env.TOOLBELT_SHOW_SCREEN) console.log(screen);
				expect(paths).toEqual([`good.test:${port} /a`, `good.test:${port} /b`]);
				const line = screen.split("\n").find((row) => row.trimStart().startsWith("network:"));
				expect(line).toMatch(
					new RegExp(
						`^ {2}network: ✗ evil\\.test:${port} refused \\(denied by "evil\\.test"\\) · ✓ good\\.test:${port} ×2 \\d+(\\.\\d)? kB`,
					),
				);
				terminal.press("C-d");
				await terminal.waitFor(/\[exit 0\]/);
			} finally {
				terminal.close();
				await server.close();
			}
		});
	},
);
