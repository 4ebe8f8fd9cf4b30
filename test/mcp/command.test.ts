import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { createMemoryIO } from "../cli/helpers/memory-io.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { waitFor } from "./helpers.js";

function responseLine(stdout: string, id: number): Record<string, unknown> | undefined {
	const line = stdout.split("\n").find((candidate) => candidate.includes(`"id":${id}`));
	return line ? (JSON.parse(line) as Record<string, unknown>) : undefined;
}

describe("toolbelt mcp, driven in process through main(argv, io)", () => {
	const tempDir = useTempDir();

	it("serves stdio on the given streams and returns 0 when stdin ends", async () => {
		const stdin = new PassThrough();
		const memory = createMemoryIO({ stdinStream: stdin, cwd: tempDir() });
		const exit = main(["mcp", "--tools", "ls,read"], memory.io);
		stdin.write(
			`${JSON.stringify({
				jsonrpc: "2.0",
				id: 1,
				method: "initialize",
				params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "memory", version: "1" } },
			})}\n`,
		);
		await waitFor(() => responseLine(memory.stdout(), 1) !== undefined, 10_000);
		stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
		stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" })}\n`);
		await waitFor(() => responseLine(memory.stdout(), 2) !== undefined, 10_000);
		const listed = responseLine(memory.stdout(), 2) as { result: { tools: { name: string }[] } };
		expect(listed.result.tools.map((tool) => tool.name)).toEqual(["ls", "read"]);
		stdin.end();
		expect(await exit).toBe(0);
		for (const line of memory.stdout().trim().split("\n")) expect(JSON.parse(line)).toHaveProperty("jsonrpc", "2.0");
	});

	it("prints its help, and rejects bad flags and non-loopback addresses with exit code 2", async () => {
		const help = createMemoryIO({ cwd: tempDir() });
		expect(await main(["mcp", "--help"], help.io)).toBe(0);
		expect(help.stdout()).toContain("Usage: toolbelt mcp");
		expect(help.stdout()).toContain("--http <host:port>");

		const remote = createMemoryIO({ cwd: tempDir() });
		expect(await main(["mcp", "--http", "192.0.2.1:8080"], remote.io)).toBe(2);
		expect(remote.stderr()).toContain("only loopback addresses");

		const badPort = createMemoryIO({ cwd: tempDir() });
		expect(await main(["mcp", "--http", "localhost:http"], badPort.io)).toBe(2);
		expect(badPort.stderr()).toContain("expected host:port");

		const both = createMemoryIO({ cwd: tempDir() });
		expect(await main(["mcp", "--read-only", "--tools", "ls"], both.io)).toBe(2);
	});

	it("--batch-budget: 8 reads sent together share the budget, every result present, the small ones whole", async () => {
		const folder = tempDir();
		const sizes = [1, 2, 4, 8, 30, 60, 120, 200];
		for (const [index, lines] of sizes.entries()) {
			const text = Array.from({ length: lines }, (_, line) => `file ${index} line ${line} ${"x".repeat(90)}`);
			await writeFile(join(folder, `f${index}.txt`), `${text.join("\n")}\n`);
		}
		const stdin = new PassThrough();
		const memory = createMemoryIO({ stdinStream: stdin, cwd: folder });
		const exit = main(["mcp", "--tools", "read", "--batch-budget", "8", "--no-record"], memory.io);
		const initialize = {
			protocolVersion: "2025-06-18",
			capabilities: {},
			clientInfo: { name: "memory", version: "1" },
		};
		stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: initialize })}\n`);
		await waitFor(() => responseLine(memory.stdout(), 1) !== undefined, 10_000);
		stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
		// One write: the 8 requests are in flight together, as a client's parallel calls are.
		const calls = sizes.map((_, index) =>
			JSON.stringify({
				jsonrpc: "2.0",
				id: 10 + index,
				method: "tools/call",
				params: { name: "read", arguments: { path: `f${index}.txt` } },
			}),
		);
		stdin.write(`${calls.join("\n")}\n`);
		await waitFor(() => sizes.every((_, index) => responseLine(memory.stdout(), 10 + index) !== undefined), 20_000);
		const texts = sizes.map((_, index) => {
			const response = responseLine(memory.stdout(), 10 + index) as { result: { content: { text: string }[] } };
			return response.result.content.map((block) => block.text).join("");
		});
		expect(texts.reduce((sum, text) => sum + Buffer.byteLength(text), 0)).toBeLessThanOrEqual(8 * 1024);
		for (const index of [0, 1, 2, 3]) {
			expect(texts[index]).toContain(`file ${index} line ${(sizes[index] ?? 0) - 1} `);
			expect(texts[index]).not.toContain("batch output budget");
		}
		for (const index of [5, 6, 7]) {
			expect(texts[index]).toContain(`file ${index} line 0 `);
			expect(texts[index]).toContain("batch output budget: this result was cut");
		}
		stdin.end();
		expect(await exit).toBe(0);
	});
});
