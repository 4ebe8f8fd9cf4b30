import { execFile } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { executeToolCalls } from "../../src/engine/execute-tool-calls.js";
import { createSafetyLayer } from "../../src/safety/index.js";
import { createFindTool, createGrepTool, createLsTool } from "../../src/tools/index.js";
import { cleanEnv, ensureBuiltCli } from "../cli/helpers/cli-binary.js";
import { useTempDir } from "../helpers/temp-dir.js";

// A red-team test of issue 12 §6: a read deny rule governs grep, find and ls — a denied file's
// content never appears in grep output and its name never in find or ls output, whatever path or
// include the call uses, on both search backends.

const run = promisify(execFile);

async function project(dir: string): Promise<void> {
	await mkdir(join(dir, "src"), { recursive: true });
	await mkdir(join(dir, "cfg"), { recursive: true });
	await writeFile(join(dir, ".env"), "SECRET_ROOT=1\n");
	await writeFile(join(dir, ".env.local"), "SECRET_LOCAL=1\n");
	await writeFile(join(dir, "cfg", ".env.prod"), "SECRET_PROD=1\n");
	await writeFile(join(dir, "cfg", "app.json"), '{ "name": "app" }\n');
	await writeFile(join(dir, "src", "a.ts"), "export const a = 1;\n");
}

/** Runs `toolbelt tool NAME ARGS --deny RULE` in `cwd`; returns everything it printed. */
async function cli(cwd: string, deny: string, name: string, args: Record<string, unknown>): Promise<string> {
	const result = await run(process.execPath, [ensureBuiltCli(), "tool", name, JSON.stringify(args), "--deny", deny], {
		cwd,
		env: cleanEnv(),
		timeout: 20_000,
	}).catch((error: { stdout?: string; stderr?: string }) => ({
		stdout: error.stdout ?? "",
		stderr: error.stderr ?? "",
	}));
	return `${result.stdout}\n${result.stderr}`;
}

const envCalls: [string, Record<string, unknown>][] = [
	["grep", { pattern: "." }],
	["grep", { pattern: "SECRET", include: ".env*" }],
	["grep", { pattern: "SECRET", path: "cfg" }],
	["grep", { pattern: "SECRET", path: ".", context: 2 }],
	["find", { pattern: "*" }],
	["find", { pattern: ".env*" }],
	["find", { pattern: "**/.env*", path: "cfg" }],
	["ls", {}],
	["ls", { path: "cfg" }],
	["ls", { recursive: true }],
];

describe("read deny rules govern grep, find and ls (built CLI, ripgrep backend)", () => {
	const dir = useTempDir();

	it.each(envCalls)("--deny 'read(.env*)': %s %j shows no denied file", async (name, args) => {
		await project(dir());
		const output = await cli(dir(), "read(.env*)", name, args);
		expect(output).not.toMatch(/SECRET/);
		expect(output).not.toMatch(/\.env/);
		// The call itself still ran and showed what is allowed.
		const widest = name === "ls" || args.pattern === "." || args.pattern === "*";
		if (widest) expect(output).toMatch(/a\.ts|app\.json|src\/|cfg\//);
	});

	it("ls says how many entries a deny rule withheld", async () => {
		await project(dir());
		expect(await cli(dir(), "read(.env*)", "ls", {})).toMatch(/2 entries withheld/);
	});

	it("--deny 'read(cfg/**)' hides cfg/.env.prod from a workspace-wide grep, and nothing else", async () => {
		await project(dir());
		const output = await cli(dir(), "read(cfg/**)", "grep", { pattern: "SECRET" });
		expect(output).not.toMatch(/SECRET_PROD/);
		expect(output).toMatch(/SECRET_ROOT/);
		expect(await cli(dir(), "read(cfg/**)", "find", { pattern: "*" })).not.toMatch(/cfg\//);
	});
});

describe("read deny rules govern grep and find on the JavaScript fallback backend", () => {
	const dir = useTempDir();

	it.each(envCalls.filter(([name]) => name !== "ls"))("%s %j (walker)", async (name, args) => {
		await project(dir());
		const safety = await createSafetyLayer({
			cwd: dir(),
			homeDir: dir(),
			mode: "yolo",
			rules: { deny: ["read(.env*)"] },
		});
		const tools = [
			createGrepTool(dir(), { backend: "walker" }),
			createFindTool(dir(), { backend: "walker" }),
			createLsTool(dir()),
		];
		const { messages } = await executeToolCalls({
			tools,
			toolCalls: [{ type: "toolCall", id: "1", name, arguments: args }],
			...safety.hooks,
		});
		const text = messages
			.flatMap((message) => message.content.map((block) => (block.type === "text" ? block.text : "")))
			.join("\n");
		expect(messages[0]?.details).toMatchObject({ backend: "walker" });
		expect(text).not.toMatch(/SECRET|\.env/);
	});
});
