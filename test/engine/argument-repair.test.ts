// Models' broken tool-call JSON, each case in our words after mistakes reported against coding agents:
// repaired before validation and run (the file written is the one the model meant), with a note in the
// result; arguments cut off inside a string, and text that is no object, refused with the reason and
// nothing written.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { executeToolCalls } from "../../src/engine/execute-tool-calls.js";
import { createWriteTool } from "../../src/tools/write.js";
import { useTempDir } from "../helpers/temp-dir.js";

const temp = useTempDir();

async function writeWith(argumentsText: string) {
	const tool = createWriteTool(temp());
	const { messages } = await executeToolCalls({
		tools: [tool],
		toolCalls: [
			{ type: "toolCall", id: "1", name: "write", arguments: argumentsText as unknown as Record<string, unknown> },
		],
	});
	const message = messages[0];
	if (!message) throw new Error("no result");
	return {
		isError: message.isError,
		text: message.content.map((part) => ("text" in part ? part.text : "")).join("\n"),
	};
}

const repaired: [string, string, string, string][] = [
	// [case, arguments as the model sent them, the content the file must hold, a word of the note]
	["a trailing comma", '{"path": "a.txt", "content": "one\\n",}', "one\n", "trailing comma"],
	["single quotes", "{'path': 'a.txt', 'content': 'two'}", "two", "single quotes"],
	[
		"a raw line break inside a string",
		'{"path": "a.txt", "content": "line 1\nline 2\n"}',
		"line 1\nline 2\n",
		"repaired",
	],
	["the closing brace missing", '{"path": "a.txt", "content": "three"', "three", "repaired"],
	["a Markdown fence around the object", '```json\n{"path": "a.txt", "content": "four"}\n```', "four", "code fence"],
	["a comment after a value", '{"path": "a.txt", // the file\n "content": "five"}', "five", "comment"],
	[
		"the object encoded twice",
		JSON.stringify(JSON.stringify({ path: "a.txt", content: "six" })),
		"six",
		"encoded as a JSON string",
	],
];

describe("tool-call arguments repaired before validation", () => {
	it.each(repaired)("%s: repaired, run, and the result says so", async (_name, text, content, note) => {
		const result = await writeWith(text);
		expect(result.isError).toBe(false);
		expect(readFileSync(join(temp(), "a.txt"), "utf8")).toBe(content);
		expect(result.text).toContain(note);
		expect(result.text).toContain("Send plain JSON next time");
	});

	it("valid JSON gets no note", async () => {
		const result = await writeWith('{"path": "a.txt", "content": "plain"}');
		expect(result.isError).toBe(false);
		expect(result.text).not.toContain("repaired");
	});

	it("arguments cut off inside a string are refused, nothing written, with what to do", async () => {
		const result = await writeWith('{"path": "a.txt", "content": "export function main() {\\n  return comp');
		expect(result.isError).toBe(true);
		expect(result.text).toContain("cut off");
		expect(result.text).toContain("write it in parts");
		expect(existsSync(join(temp(), "a.txt"))).toBe(false);
	});

	it("text that spells no object is refused with what was received", async () => {
		const result = await writeWith("write a.txt please");
		expect(result.isError).toBe(true);
		expect(result.text).toContain("not valid JSON");
		expect(result.text).toContain("write a.txt please");
		expect(existsSync(join(temp(), "a.txt"))).toBe(false);
	});
});
