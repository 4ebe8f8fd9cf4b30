// Runs the README's framework examples exactly as written (only `toolbelt/...` is pointed at src/).
import { readFileSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { disposeShellProcesses } from "../../src/workspace/local/process/background-registry.js";
import { skipBelowNode } from "./scenario.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const readme = readFileSync(`${root}README.md`, "utf8");

/** The ```ts block right after `<!-- example: name -->`. */
function example(name: string): string {
	const match = readme.match(new RegExp(`<!-- example: ${name} -->\\n\`\`\`ts\\n([\\s\\S]*?)\\n\`\`\``));
	if (!match?.[1]) throw new Error(`README has no example "${name}"`);
	return match[1];
}

const subpathSources: Record<string, string> = {
	"toolbelt/ai-sdk": "src/adapters/ai-sdk/index.ts",
	"toolbelt/langchain": "src/adapters/langchain/index.ts",
	"toolbelt/openai-agents": "src/adapters/openai-agents/index.ts",
	"toolbelt/testing": "src/testing/index.ts",
	toolbelt: "src/index.ts",
};

async function runExample(name: string): Promise<void> {
	const source = example(name).replace(/from "(toolbelt(?:\/[a-z-]+)?)"/g, (whole, subpath: string) => {
		const target = subpathSources[subpath];
		return target ? `from "${root}${target}"` : whole;
	});
	// Written next to this test so the example's own imports resolve from the project's node_modules.
	const file = fileURLToPath(new URL(`./.readme-example-${name}.ts`, import.meta.url));
	await writeFile(file, source);
	try {
		await import(/* @vite-ignore */ file);
	} finally {
		await rm(file, { force: true });
		await disposeShellProcesses();
	}
}

/**
 * Each example imports its framework fresh (transformed on first import): 10-15 s at load 15, past the
 * suite's 20 s default under heavier load. Generous, as nothing here asserts a duration.
 */
const EXAMPLE_TIMEOUT_MS = 120_000;

describe("README examples", { timeout: EXAMPLE_TIMEOUT_MS }, () => {
	it.skipIf(skipBelowNode(22, "the README's AI SDK example"))("AI SDK", async () => {
		await expect(runExample("ai-sdk")).resolves.toBeUndefined();
	});
	it("LangChain", async () => {
		await expect(runExample("langchain")).resolves.toBeUndefined();
	});
	it.skipIf(skipBelowNode(22, "the README's OpenAI Agents example"))("OpenAI Agents", async () => {
		await expect(runExample("openai-agents")).resolves.toBeUndefined();
	});
	it("toolbelt/testing", async () => {
		await expect(runExample("testing")).resolves.toBeUndefined();
	});
});
