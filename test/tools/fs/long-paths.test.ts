// A path far past what the system can name (200,000 characters) is answered with a short message
// naming the problem, by every file tool: each echoed the whole path back (200 KB for the model),
// and edit answered the raw "ENAMETOOLONG: name too long, lstat '…'".
import { describe, expect, it } from "vitest";
import { executeToolCalls } from "../../../src/engine/execute-tool-calls.js";
import { createTools } from "../../../src/tools/index.js";
import { createLocalWorkspace } from "../../../src/workspace/index.js";
import { resultText } from "../../helpers/results.js";
import { useTempDir } from "../../helpers/temp-dir.js";

const dir = useTempDir();
const longPath = "x".repeat(200_000);

const calls: [string, Record<string, unknown>][] = [
	["read", { path: longPath }],
	["write", { path: longPath, content: "x" }],
	["edit", { path: longPath, old_string: "a", new_string: "b" }],
	["ls", { path: longPath }],
	["grep", { pattern: "x", path: longPath }],
	["find", { pattern: "*", path: longPath }],
];

describe("a path of 200,000 characters", () => {
	it.each(calls)("%s answers a short error that says the name is too long or missing", async (name, args) => {
		const project = dir();
		const tools = Object.values(createTools(createLocalWorkspace(project)));
		const { messages } = await executeToolCalls({
			tools,
			toolCalls: [{ type: "toolCall", id: "1", name, arguments: args }],
		});
		const text = resultText(messages[0]!);
		expect(messages[0]?.isError, text.slice(0, 300)).toBe(true);
		expect(text.length).toBeLessThan(10_000);
		expect(text).toMatch(/too long|not found/);
		expect(text).not.toContain("ENAMETOOLONG");
	});
});
