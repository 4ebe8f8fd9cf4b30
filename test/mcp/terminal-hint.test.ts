import { spawn as spawnPty } from "@lydell/node-pty";
import { describe, expect, it } from "vitest";
import { useTempDir } from "../helpers/temp-dir.js";
import { toolbeltMcpCommand, waitFor } from "./helpers.js";

describe("toolbelt mcp typed at a terminal", () => {
	const dir = useTempDir();

	it("says that it speaks MCP on stdio and how to connect a client, then quits on Ctrl-D", async () => {
		const { command, args } = toolbeltMcpCommand(["--cwd", dir()]);
		const terminal = spawnPty(command, args, { cols: 200, rows: 40, cwd: dir(), env: process.env });
		let output = "";
		let exitCode: number | undefined;
		terminal.onData((text) => {
			output += text;
		});
		terminal.onExit(({ exitCode: code }) => {
			exitCode = code;
		});
		try {
			await waitFor(() => output.includes("claude mcp add"), 30_000);
			expect(output).toContain("toolbelt mcp");
			terminal.write("\x04");
			await waitFor(() => exitCode !== undefined, 15_000);
			expect(exitCode).toBe(0);
		} finally {
			if (exitCode === undefined) terminal.kill("SIGKILL");
		}
	}, 60_000);
});
