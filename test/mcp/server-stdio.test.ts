import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultToolsHere } from "../helpers/tool-names.js";
import { connectStdio, processesMatching, type StdioSession, textOf, waitFor } from "./helpers.js";

// One server for the file: starting a Node process costs more than all the calls together.
let session: StdioSession;
let root: string;

beforeAll(async () => {
	root = await mkdtemp(join(tmpdir(), "toolbelt-"));
	session = await connectStdio(["--cwd", root]);
});

afterAll(async () => {
	await session?.client.close();
	if (root) await rm(root, { recursive: true, force: true });
});

describe("toolbelt mcp over stdio", () => {
	it("lists the tools with JSON Schemas, descriptions and accurate annotations", async () => {
		const { tools } = await session.client.listTools();
		const byName = new Map(tools.map((tool) => [tool.name, tool]));
		expect([...byName.keys()].sort()).toEqual(defaultToolsHere().sort());
		for (const tool of tools) {
			expect(tool.inputSchema.type).toBe("object");
			expect(tool.description?.length).toBeGreaterThan(20);
		}
		expect(byName.get("read")?.inputSchema.required).toContain("path");
		for (const name of ["read", "grep", "find", "ls"]) {
			expect(byName.get(name)?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
		}
		for (const name of ["write", "edit", "bash"]) {
			expect(byName.get(name)?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
		}
		expect(byName.get("write")?.annotations?.idempotentHint).toBe(true);
		expect(byName.get("edit")?.annotations?.idempotentHint).toBe(false);
	});

	it("calls each tool and returns its text", async () => {
		const call = (name: string, args: Record<string, unknown>) =>
			session.client.callTool({ name, arguments: args }) as Promise<{ content: unknown; isError?: boolean }>;
		const written = await call("write", { path: "src/hello.ts", content: "export const greeting = 'hello';\n" });
		expect(written.isError).toBeFalsy();
		expect(await readFile(join(root, "src/hello.ts"), "utf8")).toBe("export const greeting = 'hello';\n");

		const read = await call("read", { path: "src/hello.ts" });
		expect(textOf(read)).toContain("export const greeting = 'hello';");

		const edited = await call("edit", { path: "src/hello.ts", old_string: "'hello'", new_string: "'hi'" });
		expect(edited.isError).toBeFalsy();
		expect(await readFile(join(root, "src/hello.ts"), "utf8")).toContain("'hi'");

		expect(textOf(await call("ls", { path: "src" }))).toContain("hello.ts");
		expect(textOf(await call("find", { pattern: "**/*.ts" }))).toContain("src/hello.ts");
		expect(textOf(await call("grep", { pattern: "greeting" }))).toContain("hello.ts");

		const bash = await call("bash", { command: "echo from-bash; pwd" });
		expect(bash.isError).toBeFalsy();
		expect(textOf(bash)).toContain("from-bash");
		expect(textOf(bash)).toContain(root);
	});

	it("cuts large results to the agent's budget: a 1 MB file read, 3 MB of command output", async () => {
		await writeFile(
			join(root, "big.log"),
			Array.from({ length: 60_000 }, (_, index) => `entry ${index} ${"z".repeat(10)}`).join("\n"),
		);
		const read = textOf(await session.client.callTool({ name: "read", arguments: { path: "big.log" } }));
		expect(Buffer.byteLength(read)).toBeLessThan(52 * 1024);
		expect(read).toMatch(/\[Showing lines 1-\d+ of 60000; .*Use offset=\d+ to continue\.\]$/);
		const bash = textOf(
			await session.client.callTool({
				name: "bash",
				arguments: { command: "yes 0123456789 | head -c 3000000; echo tail-end" },
			}),
		);
		expect(Buffer.byteLength(bash)).toBeLessThan(52 * 1024);
		expect(bash).toContain("tail-end");
	});

	it("returns an image read as image content", async () => {
		const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: "#ff0000" } })
			.png()
			.toBuffer();
		await writeFile(join(root, "pixel.png"), png);
		const result = (await session.client.callTool({ name: "read", arguments: { path: "pixel.png" } })) as {
			content: { type: string; data?: string; mimeType?: string }[];
		};
		const image = result.content.find((block) => block.type === "image");
		expect(image?.mimeType).toMatch(/^image\//);
		expect(Buffer.from(image?.data ?? "", "base64").length).toBeGreaterThan(20);
	});

	it("reports a failing tool as an isError result with the model-facing message", async () => {
		const missing = await session.client.callTool({ name: "read", arguments: { path: "no/such/file.txt" } });
		expect(missing.isError).toBe(true);
		expect(textOf(missing)).toMatch(/not found/i);

		const invalid = await session.client.callTool({ name: "read", arguments: { offset: "x" } });
		expect(invalid.isError).toBe(true);
		expect(textOf(invalid)).toContain('Validation failed for tool "read"');
		expect(textOf(invalid)).toContain("path: is required");

		const error = await session.client.callTool({ name: "no_such_tool", arguments: {} }).catch((thrown) => thrown);
		expect(error).toBeInstanceOf(McpError);
		expect((error as McpError).code).toBe(-32602);
		expect((error as McpError).message).toContain("Available tools: read");

		// Still serving after the bad requests.
		expect((await session.client.listTools()).tools.length).toBe(10);
	});

	it("coerces string arguments as the engine does", async () => {
		await writeFile(join(root, "lines.txt"), "one\ntwo\nthree\n");
		const result = await session.client.callTool({
			name: "read",
			arguments: { path: "lines.txt", offset: "2", limit: "1" },
		});
		expect(result.isError).toBeFalsy();
		expect(textOf(result)).toContain("two");
		expect(textOf(result)).not.toContain("three");
	});

	it("cancellation aborts the call and kills its process tree", async () => {
		const marker = "37.7131";
		const controller = new AbortController();
		const call = session.client.callTool({ name: "bash", arguments: { command: `sleep ${marker}` } }, undefined, {
			signal: controller.signal,
		});
		await waitFor(() => processesMatching(`sleep ${marker}`).length > 0, 10_000);
		const started = Date.now();
		controller.abort("test cancels");
		await expect(call).rejects.toThrow();
		await waitFor(() => processesMatching(`sleep ${marker}`).length === 0, 3000);
		expect(Date.now() - started).toBeLessThan(3000);
		// The server is still fine.
		expect(textOf(await session.client.callTool({ name: "bash", arguments: { command: "echo alive" } }))).toContain(
			"alive",
		);
	});

	it("sends progress notifications with the growing output tail", async () => {
		const messages: string[] = [];
		const result = await session.client.callTool(
			{ name: "bash", arguments: { command: "for i in 1 2 3 4 5 6; do echo step-$i; sleep 0.25; done" } },
			undefined,
			{ onprogress: (progress) => messages.push(progress.message ?? "") },
		);
		expect(result.isError).toBeFalsy();
		expect(messages.length).toBeGreaterThanOrEqual(2);
		expect(messages.some((message) => message.includes("step-1"))).toBe(true);
		const last = messages.at(-1) ?? "";
		expect(last.length).toBeGreaterThanOrEqual((messages[0] ?? "").length);
		expect(textOf(result)).toContain("step-6");
	});

	it("runs two concurrent edits of one file so that both land", async () => {
		const path = join(root, "shared.txt");
		await writeFile(path, "alpha\nbeta\ngamma\n");
		const [first, second] = await Promise.all([
			session.client.callTool({ name: "edit", arguments: { path, old_string: "alpha", new_string: "ALPHA" } }),
			session.client.callTool({ name: "edit", arguments: { path, old_string: "gamma", new_string: "GAMMA" } }),
		]);
		expect(first.isError).toBeFalsy();
		expect(second.isError).toBeFalsy();
		expect(await readFile(path, "utf8")).toBe("ALPHA\nbeta\nGAMMA\n");
	});

	it("makes a sequential call a barrier for calls that arrive after it", async () => {
		const [written, read] = await Promise.all([
			session.client.callTool({ name: "bash", arguments: { command: "sleep 0.4; echo barrier-held > barrier.txt" } }),
			session.client.callTool({ name: "read", arguments: { path: "barrier.txt" } }),
		]);
		expect(written.isError).toBeFalsy();
		expect(read.isError).toBeFalsy();
		expect(textOf(read)).toContain("barrier-held");
	});

	it("serves only the read-only tools with --read-only", async () => {
		const readOnly = await connectStdio(["--cwd", root, "--read-only"]);
		try {
			const { tools } = await readOnly.client.listTools();
			expect(tools.map((tool) => tool.name).sort()).toEqual(["find", "grep", "ls", "read"]);
			const error = await readOnly.client
				.callTool({ name: "write", arguments: { path: "x", content: "y" } })
				.catch((thrown) => thrown);
			expect(error).toBeInstanceOf(McpError);
		} finally {
			await readOnly.client.close();
		}
	});
});
