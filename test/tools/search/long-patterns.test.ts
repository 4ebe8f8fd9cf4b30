// A pattern or glob of 200,000 characters: ripgrep could not even be started ("spawn E2BIG": one
// program argument holds at most 128 KiB on Linux), and a long include glob failed in picomatch
// ("Input length: 200000, exceeds maximum allowed length: 65536"). The schemas bound them, so the
// model reads which argument is too long and by how much, before anything runs.
import { describe, expect, it } from "vitest";
import { executeToolCalls } from "../../../src/engine/execute-tool-calls.js";
import { createTools } from "../../../src/tools/index.js";
import { createLocalWorkspace } from "../../../src/workspace/index.js";
import { resultText } from "../../helpers/results.js";
import { useTempDir } from "../../helpers/temp-dir.js";

const dir = useTempDir();
const long = "x".repeat(200_000);
const braces = `{${Array.from({ length: 30_000 }, (_, index) => index).join(",")}}`;

const calls: [string, string, Record<string, unknown>][] = [
	["grep", "pattern", { pattern: long }],
	["grep", "include", { pattern: "x", include: long }],
	["grep", "exclude", { pattern: "x", exclude: long }],
	["find", "pattern", { pattern: long }],
	["find", "pattern", { pattern: braces }],
];

describe("a search pattern or glob past what a search takes", () => {
	it.each(calls)("%s with a long %s is refused naming the argument and its bound", async (name, argument, args) => {
		const tools = Object.values(createTools(createLocalWorkspace(dir())));
		const { messages } = await executeToolCalls({
			tools,
			toolCalls: [{ type: "toolCall", id: "1", name, arguments: args }],
		});
		const text = resultText(messages[0]!);
		expect(messages[0]?.isError, text.slice(0, 300)).toBe(true);
		expect(text).toContain(`${argument}: must NOT have more than 32768 characters`);
		expect(text.length).toBeLessThan(5_000);
	});

	it("a pattern of 30,000 characters still searches", async () => {
		const tools = Object.values(createTools(createLocalWorkspace(dir())));
		const pattern = Array.from({ length: 3_000 }, (_, index) => `word${index}`).join("|");
		const { messages } = await executeToolCalls({
			tools,
			toolCalls: [{ type: "toolCall", id: "1", name: "grep", arguments: { pattern } }],
		});
		expect(messages[0]?.isError, resultText(messages[0]!).slice(0, 300)).toBe(false);
	});
});
