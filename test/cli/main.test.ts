import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { commands } from "../../src/cli/commands.js";
import { main } from "../../src/cli/main.js";
import { createMemoryIO } from "./helpers/memory-io.js";

const version = (
	JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }
).version;

describe("main: version, help, usage errors", () => {
	it("prints the package version", async () => {
		const { io, stdout } = createMemoryIO();
		expect(await main(["--version"], io)).toBe(0);
		expect(stdout()).toBe(`${version}\n`);
	});

	it("prints the top-level help with every command and the provider setup", async () => {
		const { io, stdout } = createMemoryIO();
		expect(await main(["--help"], io)).toBe(0);
		for (const name of ["run", "tool", "tools", "mcp"]) expect(stdout()).toMatch(new RegExp(`^  ${name}\\s`, "m"));
		expect(stdout()).toContain("--base-url http://localhost:11434/v1");
		expect(stdout()).toContain("OPENAI_API_KEY");
	});

	it.each(commands.map((command) => command.name))("prints help for '%s'", async (name) => {
		const { io, stdout } = createMemoryIO();
		expect(await main([name, "--help"], io)).toBe(0);
		expect(stdout()).toContain(`Usage: toolbelt ${name}`);
		expect(stdout()).toContain("-h, --help");
		const short = createMemoryIO();
		expect(await main([name, "-h"], short.io)).toBe(0);
		expect(short.stdout()).toBe(stdout());
	});

	it("hands 'mcp' its raw arguments (its own help, its own flags)", async () => {
		const { io, stdout } = createMemoryIO();
		expect(await main(["mcp", "--help"], io)).toBe(0);
		expect(stdout()).toContain("Usage: toolbelt mcp");
		const bad = createMemoryIO();
		expect(await main(["mcp", "--bogus"], bad.io)).toBe(2);
		expect(bad.stderr()).toContain("Unknown option '--bogus'");
		expect(bad.stderr()).toContain("Run 'toolbelt mcp --help'");
	});

	it("rejects an unknown flag with exit 2 and suggests the near miss", async () => {
		const { io, stderr, stdout } = createMemoryIO();
		expect(await main(["run", "--modle", "x", "hello"], io)).toBe(2);
		expect(stderr()).toContain("Unknown option '--modle'. Did you mean '--model'?");
		expect(stderr()).toContain("toolbelt run --help");
		expect(stdout()).toBe("");
	});

	it("rejects a missing value and a value given to a switch", async () => {
		const missing = createMemoryIO();
		expect(await main(["tools", "--format"], missing.io)).toBe(2);
		expect(missing.stderr()).toContain("'--format' needs a value");
		const switchValue = createMemoryIO();
		expect(await main(["tools", "--read-only=yes"], switchValue.io)).toBe(2);
		expect(switchValue.stderr()).toContain("'--read-only' is a switch");
	});

	it("rejects an unknown command, pointing at run", async () => {
		const { io, stderr } = createMemoryIO();
		expect(await main(["fix", "the", "bug"], io)).toBe(2);
		expect(stderr()).toContain("Unknown command 'fix'");
		expect(stderr()).toContain('toolbelt run "<prompt>"');
	});

	it("accepts flags before the command", async () => {
		const { io, stdout } = createMemoryIO();
		expect(await main(["--read-only", "tools"], io)).toBe(0);
		expect(
			stdout()
				.trim()
				.split("\n")
				.map((line) => line.split(" ")[0]),
		).toEqual(["read", "grep", "find", "ls"]);
	});

	it("refuses the interactive session without a terminal", async () => {
		const { io, stderr } = createMemoryIO({ env: { OPENAI_API_KEY: "sk-test" } });
		expect(await main([], io)).toBe(2);
		expect(stderr()).toContain("needs a terminal");
		expect(stderr()).toContain("toolbelt run");
	});
});

describe("main: provider configuration", () => {
	it("explains every way to configure a provider when none is", async () => {
		const { io, stderr } = createMemoryIO({ stdin: "" });
		expect(await main(["run", "hello"], io)).toBe(2);
		expect(stderr()).toContain("No model provider is configured");
		expect(stderr()).toContain("export OPENAI_API_KEY=");
		expect(stderr()).toContain("export ANTHROPIC_API_KEY=");
		expect(stderr()).toContain("--provider openai --base-url http://localhost:11434/v1 --model");
	});

	it("names the key variable for an explicit provider without a key", async () => {
		const { io, stderr } = createMemoryIO();
		expect(await main(["run", "--provider", "anthropic", "hello"], io)).toBe(2);
		expect(stderr()).toContain("export ANTHROPIC_API_KEY=");
	});

	it("asks for a model with a custom base URL, and rejects an unknown provider", async () => {
		const noModel = createMemoryIO();
		expect(await main(["run", "--base-url", "http://127.0.0.1:9/v1", "hello"], noModel.io)).toBe(2);
		expect(noModel.stderr()).toContain("--model <id>");
		const unknown = createMemoryIO();
		expect(await main(["run", "--provider", "gemini", "hello"], unknown.io)).toBe(2);
		expect(unknown.stderr()).toContain("Unknown provider 'gemini'");
	});

	it("rejects a missing prompt and a bad --max-turns", async () => {
		const env = { OPENAI_API_KEY: "sk-test" };
		const empty = createMemoryIO({ env, stdin: "  \n" });
		expect(await main(["run"], empty.io)).toBe(2);
		expect(empty.stderr()).toContain("Missing the prompt");
		const turns = createMemoryIO({ env });
		expect(await main(["run", "--max-turns", "zero", "hi"], turns.io)).toBe(2);
		expect(turns.stderr()).toContain("--max-turns");
	});
});
