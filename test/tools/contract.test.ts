// One contract, every built-in tool: the same cases run against all 11.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { executeToolCalls } from "../../src/engine/execute-tool-calls.js";
import { allToolNames, createTool, createToolDefinition, type ToolName } from "../../src/tools/index.js";
import { resultText } from "../helpers/results.js";
import { useTempDir } from "../helpers/temp-dir.js";

/** Arguments that make each tool do real work that takes a while (so abort has something to stop). */
const slowArgs: Record<ToolName, Record<string, unknown>> = {
	read: { path: "big.txt" },
	write: { path: "out.txt", content: "x".repeat(1_000_000) },
	edit: { path: "big.txt", old_string: "line 1\n", new_string: "first line\n" },
	apply_patch: { patch: "*** Begin Patch\n*** Update File: big.txt\n@@\n-line 1\n+first line\n line 2\n*** End Patch" },
	bash: { command: "sleep 30" },
	powershell: { command: "Start-Sleep -Seconds 30" },
	bash_output: { id: "job-1", wait_seconds: 30 },
	bash_kill: { id: "job-1" },
	grep: { pattern: "line 9+", path: "." },
	find: { pattern: "**/*", path: "." },
	ls: { path: ".", recursive: true },
	code: { code: "while (true) {}" },
};

/** Arguments that make each tool fail. */
const failingArgs: Record<ToolName, Record<string, unknown>> = {
	read: { path: "missing.txt" },
	write: { path: "big.txt/inside-a-file.txt", content: "x" },
	edit: { path: "missing.txt", old_string: "a", new_string: "b" },
	apply_patch: { patch: "*** Begin Patch\n*** Delete File: missing.txt\n*** End Patch" },
	bash: { command: "exit 3" },
	powershell: { command: "exit 3" },
	bash_output: { id: "job-999" },
	bash_kill: { id: "job-999" },
	grep: { pattern: "x", path: "missing-dir" },
	find: { pattern: "*", path: "missing-dir" },
	ls: { path: "missing-dir" },
	code: { code: "throw new Error('failing on purpose')" },
};

const expectedMode: Record<ToolName, "parallel" | "sequential"> = {
	read: "parallel",
	grep: "parallel",
	find: "parallel",
	ls: "parallel",
	write: "sequential",
	edit: "sequential",
	apply_patch: "sequential",
	bash: "sequential",
	powershell: "sequential",
	bash_output: "sequential",
	bash_kill: "sequential",
	code: "sequential",
};

describe.each(allToolNames)("contract: %s", (name) => {
	const tempDir = useTempDir();

	const seed = async () => {
		const lines = Array.from({ length: 200_000 }, (_, index) => `line ${index + 1}`).join("\n");
		await writeFile(join(tempDir(), "big.txt"), `${lines}\n`);
	};

	it("has an object schema, a description, annotations, and the same definition as the runnable tool", () => {
		const definition = createToolDefinition(name, tempDir());
		const tool = createTool(name, tempDir());
		expect(definition.name).toBe(name);
		expect((definition.parameters as { type?: string }).type).toBe("object");
		expect(definition.description.length).toBeGreaterThan(20);
		expect(definition.annotations).toBeDefined();
		expect(definition.annotations?.readOnlyHint).toBe(expectedMode[name] === "parallel");
		expect(tool.name).toBe(definition.name);
		expect(tool.description).toBe(definition.description);
		expect(JSON.stringify(tool.parameters)).toBe(JSON.stringify(definition.parameters));
		expect(tool.executionMode ?? "parallel").toBe(expectedMode[name]);
	});

	it("settles promptly when aborted mid-call", async () => {
		await seed();
		const controller = new AbortController();
		const tool = createTool(name, tempDir());
		setTimeout(() => controller.abort(), 30);
		const started = performance.now();
		const { messages } = await executeToolCalls({
			tools: [tool],
			toolCalls: [{ type: "toolCall", id: "1", name, arguments: slowArgs[name] }],
			signal: controller.signal,
			abortGraceMs: 15_000,
		});
		expect(messages).toHaveLength(1);
		// The tool itself stopped: well before the grace (which would settle a tool that ignores
		// the abort) ran out, with room for a loaded machine's slow process exits.
		expect(performance.now() - started).toBeLessThan(10_000);
	});

	it("turns a failure into exactly one error result with a message for the model", async () => {
		await seed();
		const events: string[] = [];
		const { messages } = await executeToolCalls({
			tools: [createTool(name, tempDir())],
			toolCalls: [{ type: "toolCall", id: "1", name, arguments: failingArgs[name] }],
			onEvent: (event) => events.push(event.type),
		});
		expect(messages).toHaveLength(1);
		expect(messages[0]!.isError).toBe(true);
		const text = resultText(messages[0]!);
		expect(text.length).toBeGreaterThan(10);
		expect(text).not.toMatch(/^\s*at /m); // no stack traces
		expect(events.filter((type) => type === "tool_execution_end")).toHaveLength(1);
	});
});
