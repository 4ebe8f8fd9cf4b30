import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { defaultToolsHere } from "../helpers/tool-names.js";
import { createMemoryIO } from "./helpers/memory-io.js";

describe("toolbelt tool", () => {
	const tempDir = useTempDir();

	it("runs a tool and prints what the model would see", async () => {
		await writeFile(join(tempDir(), "notes.txt"), "alpha\nbeta\ngamma\n");
		const { io, stdout, stderr } = createMemoryIO({ cwd: tempDir() });
		expect(await main(["tool", "read", '{"path": "notes.txt"}'], io)).toBe(0);
		expect(stdout()).toMatch(/1\talpha\n\s*2\tbeta\n\s*3\tgamma/);
		expect(stderr()).toBe("");
	});

	it("validates and coerces arguments through the engine, as for a model", async () => {
		await writeFile(join(tempDir(), "notes.txt"), "alpha\nbeta\ngamma\n");
		const { io, stdout } = createMemoryIO({ cwd: tempDir() });
		// "2" as a string is coerced to the integer 2, as a sloppy model's argument would be.
		expect(await main(["tool", "read", '{"path": "notes.txt", "offset": "2", "limit": "1"}'], io)).toBe(0);
		expect(stdout()).toContain("beta");
		expect(stdout()).not.toContain("alpha");

		const invalid = createMemoryIO({ cwd: tempDir() });
		expect(await main(["tool", "read", '{"limit": 3}'], invalid.io)).toBe(1);
		expect(invalid.stderr()).toMatch(/path/);
		expect(invalid.stdout()).toBe("");
	});

	it("prints an error result on stderr with exit 1, and the full result with --json", async () => {
		const failed = createMemoryIO({ cwd: tempDir() });
		expect(await main(["tool", "read", '{"path": "missing.txt"}'], failed.io)).toBe(1);
		expect(failed.stderr()).toContain("missing.txt");

		await mkdir(join(tempDir(), "sub"));
		await writeFile(join(tempDir(), "sub", "a.ts"), "export const a = 1;\n");
		const json = createMemoryIO({ cwd: tempDir() });
		expect(await main(["tool", "ls", '{"path": "."}', "--json"], json.io)).toBe(0);
		const result = JSON.parse(json.stdout()) as { content: { type: string; text: string }[]; isError: boolean };
		expect(result.isError).toBe(false);
		expect(result.content[0]?.text).toContain("sub/");
		expect(result).toHaveProperty("details");
	});

	it("reads the arguments from piped stdin and honours --cwd", async () => {
		await mkdir(join(tempDir(), "project"));
		await writeFile(join(tempDir(), "project", "hello.txt"), "hi there\n");
		const { io, stdout } = createMemoryIO({ cwd: tempDir(), stdin: '{"path": "hello.txt"}' });
		expect(await main(["tool", "--cwd", "project", "read"], io)).toBe(0);
		expect(stdout()).toContain("hi there");

		const missingDir = createMemoryIO({ cwd: tempDir() });
		expect(await main(["tool", "--cwd", "nowhere", "ls", "{}"], missingDir.io)).toBe(2);
		expect(missingDir.stderr()).toContain("--cwd nowhere: no such directory");
	});

	it("runs the writing tools for real", async () => {
		const { io } = createMemoryIO({ cwd: tempDir() });
		const args = JSON.stringify({ path: "out/new.txt", content: "written by the CLI\n" });
		expect(await main(["tool", "write", args], io)).toBe(0);
		expect(await readFile(join(tempDir(), "out", "new.txt"), "utf8")).toBe("written by the CLI\n");
	});

	it("rejects bad JSON, non-object JSON, an unknown tool and extra arguments with exit 2", async () => {
		const cases: [string[], RegExp][] = [
			[["tool", "read", '{"path": '], /not valid JSON/],
			[["tool", "read", '["a"]'], /must be a JSON object/],
			[["tool", "nope", "{}"], /Unknown tool 'nope'. Known tools: read, write, edit, apply_patch, bash/],
			[["tool"], /Missing the tool name/],
			[["tool", "ls", "{}", "extra"], /Unexpected argument 'extra'/],
		];
		for (const [argv, message] of cases) {
			const { io, stderr, stdout } = createMemoryIO({ cwd: tempDir() });
			expect(await main(argv, io), argv.join(" ")).toBe(2);
			expect(stderr()).toMatch(message);
			expect(stdout()).toBe("");
		}
	});

	it("cancels a running tool on interrupt with exit 130", async () => {
		const { io, stderr, interrupt } = createMemoryIO({ cwd: tempDir() });
		const started = Date.now();
		const running = main(["tool", "bash", '{"command": "sleep 30"}'], io);
		await new Promise((resolve) => setTimeout(resolve, 500));
		interrupt();
		expect(await running).toBe(130);
		expect(Date.now() - started).toBeLessThan(10_000);
		expect(stderr()).toMatch(/cancel|abort/i);
	});
});

describe("toolbelt tools", () => {
	it("lists every tool but powershell by default, one per line", async () => {
		const { io, stdout } = createMemoryIO();
		expect(await main(["tools"], io)).toBe(0);
		const names = stdout()
			.trim()
			.split("\n")
			.map((line) => line.split(" ")[0]);
		expect(names).toEqual(defaultToolsHere());
		expect(stdout()).toMatch(/^read\s+read-only\s+\S/m);
	});

	it("prints JSON Schema, OpenAI and Anthropic shapes", async () => {
		const schema = createMemoryIO();
		expect(await main(["tools", "--format", "json-schema", "--tools", "read,bash"], schema.io)).toBe(0);
		const definitions = JSON.parse(schema.stdout()) as {
			name: string;
			inputSchema: { type: string; properties: object };
			annotations?: object;
		}[];
		expect(definitions.map((definition) => definition.name)).toEqual(["read", "bash"]);
		expect(definitions[0]?.inputSchema.type).toBe("object");
		expect(definitions[0]?.inputSchema.properties).toHaveProperty("path");
		expect(definitions[0]?.annotations).toMatchObject({ readOnlyHint: true });

		const openai = createMemoryIO();
		expect(await main(["tools", "--format", "openai", "--read-only"], openai.io)).toBe(0);
		const openaiTools = JSON.parse(openai.stdout()) as {
			type: string;
			function: { name: string; parameters: object };
		}[];
		expect(openaiTools.map((tool) => tool.function.name)).toEqual(["read", "grep", "find", "ls"]);
		expect(openaiTools.every((tool) => tool.type === "function")).toBe(true);

		const anthropic = createMemoryIO();
		expect(await main(["tools", "--format=anthropic", "--tools", "grep"], anthropic.io)).toBe(0);
		const anthropicTools = JSON.parse(anthropic.stdout()) as { name: string; input_schema: { type: string } }[];
		expect(anthropicTools).toHaveLength(1);
		expect(anthropicTools[0]).toMatchObject({ name: "grep", input_schema: { type: "object" } });
	});

	it("rejects an unknown format, unknown tools, and --tools with --read-only", async () => {
		const cases: [string[], RegExp][] = [
			[["tools", "--format", "yaml"], /Unknown format 'yaml'. Use one of: json-schema, openai, anthropic/],
			[["tools", "--tools", "read,cat"], /Unknown tool cat in --tools/],
			[["tools", "--tools", "read", "--read-only"], /either --tools or --read-only/],
			[["tools", "extra"], /Unexpected argument 'extra'/],
		];
		for (const [argv, message] of cases) {
			const { io, stderr } = createMemoryIO();
			expect(await main(argv, io), argv.join(" ")).toBe(2);
			expect(stderr()).toMatch(message);
		}
	});
});
