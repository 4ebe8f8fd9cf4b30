import { type ChildProcess, spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { useTempDir } from "../helpers/temp-dir.js";
import { processesMatching, toolbeltMcpCommand, waitFor } from "./helpers.js";

/** A `toolbelt mcp` child spoken to in raw JSON-RPC lines, to send what the SDK client never would. */
function startRaw(cwd: string) {
	const { command, args } = toolbeltMcpCommand(["--cwd", cwd]);
	const child = spawn(command, args, { stdio: ["pipe", "pipe", "pipe"] });
	const stdoutLines: string[] = [];
	let buffered = "";
	child.stdout.on("data", (chunk: Buffer) => {
		buffered += chunk.toString("utf8");
		const lines = buffered.split("\n");
		buffered = lines.pop() ?? "";
		stdoutLines.push(...lines.filter((line) => line !== ""));
	});
	let stderr = "";
	child.stderr.on("data", (chunk: Buffer) => {
		stderr += chunk.toString("utf8");
	});
	const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
	const send = (message: unknown) =>
		child.stdin.write(typeof message === "string" ? message : `${JSON.stringify(message)}\n`);
	const response = async (id: number) => {
		await waitFor(() => stdoutLines.some((line) => line.includes(`"id":${id}`)), 15_000);
		return JSON.parse(stdoutLines.find((line) => line.includes(`"id":${id}`)) ?? "{}") as {
			result?: Record<string, unknown>;
			error?: { code: number; message: string };
		};
	};
	return { child, stdoutLines, send, response, exited, stderr: () => stderr };
}

const initialize = {
	jsonrpc: "2.0",
	id: 1,
	method: "initialize",
	params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

function killQuietly(child: ChildProcess) {
	if (child.exitCode === null) child.kill("SIGKILL");
}

describe("toolbelt mcp as a process", () => {
	const tempDir = useTempDir();

	it("survives malformed messages and writes nothing but JSON-RPC to stdout", async () => {
		const server = startRaw(tempDir());
		try {
			server.send("this is not json\n");
			server.send('{"jsonrpc":"2.0","id":"x","method":"no/such/method"}\n');
			server.send(initialize);
			expect((await server.response(1)).result?.serverInfo).toMatchObject({ name: "toolbelt" });
			server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
			server.send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "ls" } });
			server.send({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { arguments: {} } });
			server.send({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "read", arguments: { path: 1 } } });
			expect((await server.response(2)).result?.isError).toBeFalsy();
			expect((await server.response(3)).error?.code).toBe(-32602);
			expect((await server.response(4)).result?.isError).toBe(true);
			for (const line of server.stdoutLines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: "2.0" });
			expect(server.child.exitCode).toBeNull();
		} finally {
			killQuietly(server.child);
		}
	});

	it("exits on stdin EOF and kills the processes it started", async () => {
		const server = startRaw(tempDir());
		try {
			server.send(initialize);
			await server.response(1);
			server.send({ jsonrpc: "2.0", method: "notifications/initialized" });
			// A background process left by a finished call, and a call still running.
			server.send({
				jsonrpc: "2.0",
				id: 2,
				method: "tools/call",
				params: { name: "bash", arguments: { command: "sleep 41.2718 > /dev/null 2>&1 & echo started" } },
			});
			expect(JSON.stringify((await server.response(2)).result)).toContain("started");
			server.send({
				jsonrpc: "2.0",
				id: 3,
				method: "tools/call",
				params: { name: "bash", arguments: { command: "sleep 42.2718" } },
			});
			await waitFor(() => processesMatching("sleep 42.2718").length > 0, 10_000);
			expect(processesMatching("sleep 41.2718").length).toBe(1);
			const started = Date.now();
			server.child.stdin.end();
			expect(await server.exited).toBe(0);
			expect(Date.now() - started).toBeLessThan(5000);
			await waitFor(
				() => processesMatching("sleep 41.2718").length === 0 && processesMatching("sleep 42.2718").length === 0,
				3000,
			);
		} finally {
			killQuietly(server.child);
		}
	});
});
