import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { processesMatching, waitFor } from "./helpers.js";
import { RawMcpProcess } from "./raw-stdio.js";

// A hostile or broken client over stdio: the server answers every line it cannot take, within
// bounded memory, and goes on serving. One server for the file (each case leaves it serving).
let server: RawMcpProcess;
let root: string;

beforeAll(async () => {
	root = await mkdtemp(join(tmpdir(), "toolbelt-"));
	server = new RawMcpProcess(["--cwd", root]);
	await server.initialize();
}, 60_000);

afterAll(async () => {
	await server?.stop();
	if (root) await rm(root, { recursive: true, force: true });
});

/** A `tools/call` of `write` as the MCP SDK's client serializes it: the id comes last. */
function writeCallHead(path: string): string {
	return `{"method":"tools/call","params":{"name":"write","arguments":{"path":${JSON.stringify(path)},"content":"`;
}
function writeCallTail(id: string): string {
	return `"}},"jsonrpc":"2.0","id":${JSON.stringify(id)}}\n`;
}

const MiB = 2 ** 20;

// Each case waits with its own bounds (answerTo, waitFor); the test timeout only has to exceed them.
describe("toolbelt mcp over stdio, under bad input", { timeout: 180_000 }, () => {
	it("answers an 11 MB call under its own id with -32600 and serves on", async () => {
		await server.write(writeCallHead("eleven.txt") + "x".repeat(11 * MiB) + writeCallTail("eleven"));
		const answer = await server.answerTo("eleven");
		expect(answer.error?.code).toBe(-32600);
		expect(existsSync(join(root, "eleven.txt"))).toBe(false);
		expect((await server.ping("after-eleven")).result).toEqual({});
		expect(server.child.exitCode).toBeNull();
	});

	it("drops a 200 MB line as it arrives: memory stays far below the line's size", async () => {
		const chunk = "y".repeat(MiB);
		// What the server held at its most before the line (its tools, the shell parser it loads ahead).
		const before = server.peakMemoryBytes();
		await server.write(writeCallHead("huge.txt"));
		for (let sent = 0; sent < 200 && server.child.exitCode === null; sent++) await server.write(chunk);
		await server.write(writeCallTail("huge"));
		expect((await server.answerTo("huge", 120_000)).error?.code).toBe(-32600);
		expect((await server.ping("after-huge")).result).toEqual({});
		// The line alone would be 200 MB: the peak grew by far less (chunks dropped, not yet collected).
		expect(server.peakMemoryBytes() - before).toBeLessThan(100 * MiB);
		expect(existsSync(join(root, "huge.txt"))).toBe(false);
	});

	it("answers a line that is not JSON with -32700 and serves on", async () => {
		await server.write('{"jsonrpc":"2.0","id":"broken","method":"ping"\n');
		const answer = await server.waitFor((candidate) => candidate.error?.code === -32700);
		expect(answer.id).toBeNull();
		expect((await server.ping("after-broken")).result).toEqual({});
	});

	it("answers JSON that is not a JSON-RPC message with -32600 under its id", async () => {
		await server.write(`${JSON.stringify({ id: "no-method", params: {} })}\n`);
		expect((await server.answerTo("no-method")).error?.code).toBe(-32600);
		await server.write("[1, 2, 3]\n");
		await server.waitFor((candidate) => candidate.id === null && candidate.error?.code === -32600);
		expect((await server.ping("after-invalid")).result).toEqual({});
	});

	it("answers a message nested 4,000,000 levels deep with -32600 under its id, without parsing it", async () => {
		// 8 MB, under the size limit: parsed, its 4 million arrays took the server to 506 MB for 10 s.
		const before = server.peakMemoryBytes();
		const depth = 4_000_000;
		await server.write(
			`{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{"name":"read","arguments":{"path":"a","x":${"[".repeat(depth)}${"]".repeat(depth)}}}}\n`,
		);
		const answer = await server.answerTo("deep", 60_000);
		expect(answer.error?.code).toBe(-32600);
		expect(answer.error?.message).toMatch(/nests arrays or objects more than 128 levels deep/);
		expect(server.peakMemoryBytes() - before).toBeLessThan(100 * MiB);
		expect((await server.ping("after-deep")).result).toEqual({});
	});

	it("answers other requests while a call runs, and a cancel ends the call's process", async () => {
		const marker = `31${process.pid}.5`;
		server.send({
			jsonrpc: "2.0",
			id: "slow",
			method: "tools/call",
			params: { name: "bash", arguments: { command: `sleep ${marker}`, timeout: 600 } },
		});
		await waitFor(() => processesMatching(`sleep ${marker}`).length > 0, 20_000);
		expect((await server.ping("while-slow")).result).toEqual({});
		server.send({ jsonrpc: "2.0", id: "list-while-slow", method: "tools/list" });
		expect((await server.answerTo("list-while-slow")).result?.tools).toBeDefined();
		server.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "slow", reason: "test" } });
		await waitFor(() => processesMatching(`sleep ${marker}`).length === 0, 20_000);
		await writeFile(join(root, "after.txt"), "still serving\n");
		server.send({
			jsonrpc: "2.0",
			id: "read-after",
			method: "tools/call",
			params: { name: "read", arguments: { path: "after.txt" } },
		});
		expect(JSON.stringify((await server.answerTo("read-after")).result)).toContain("still serving");
	});
});
