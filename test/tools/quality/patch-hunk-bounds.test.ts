// apply_patch seeks each hunk (unique) in the rest of the file after the hunk before it: 100,000
// hunks on an 8 MB file searched for more than 5 minutes (8,000: 63 s). Now a file's hunks may
// search at most MAX_PATCH_SEARCH_CHARS together; past that the call is refused at once, saying
// how many hunks a file that size takes, and nothing is written.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { executeToolCalls } from "../../../src/engine/execute-tool-calls.js";
import { createTools } from "../../../src/tools/index.js";
import { createLocalWorkspace } from "../../../src/workspace/index.js";
import { resultText } from "../../helpers/results.js";
import { useTempDir } from "../../helpers/temp-dir.js";

const dir = useTempDir();

describe("apply_patch with 100,000 hunks for an 8 MB file", () => {
	it("is refused at once, naming how many hunks the file takes, and changes nothing", async () => {
		const project = dir();
		const lines = Array.from({ length: 250_000 }, (_, index) => `line ${index} of a large generated file`);
		const original = `${lines.join("\n")}\n`;
		await writeFile(join(project, "big.txt"), original);
		const patch = ["*** Begin Patch", "*** Update File: big.txt"];
		for (let index = 0; index < 200_000; index += 2)
			patch.push("@@", ` ${lines[index]}`, `-${lines[index + 1]}`, "+CHANGED");
		patch.push("*** End Patch");
		const tools = Object.values(createTools(createLocalWorkspace(project)));
		const { messages } = await executeToolCalls({
			tools,
			toolCalls: [{ type: "toolCall", id: "1", name: "apply_patch", arguments: { patch: patch.join("\n") } }],
		});
		const text = resultText(messages[0]!);
		expect(messages[0]?.isError).toBe(true);
		expect(text).toMatch(/100,000 hunks for big\.txt .* at most \d+ hunks for a file this size in one call/);
		expect(await readFile(join(project, "big.txt"), "utf8")).toBe(original);
	}, 60_000);

	it("still applies 50 hunks to it", async () => {
		const project = dir();
		const lines = Array.from({ length: 250_000 }, (_, index) => `line ${index} of a large generated file`);
		await writeFile(join(project, "big.txt"), `${lines.join("\n")}\n`);
		const patch = ["*** Begin Patch", "*** Update File: big.txt"];
		for (let index = 0; index < 100; index += 2)
			patch.push("@@", ` ${lines[index]}`, `-${lines[index + 1]}`, "+CHANGED");
		patch.push("*** End Patch");
		const tools = Object.values(createTools(createLocalWorkspace(project)));
		const { messages } = await executeToolCalls({
			tools,
			toolCalls: [{ type: "toolCall", id: "1", name: "apply_patch", arguments: { patch: patch.join("\n") } }],
		});
		expect(messages[0]?.isError, resultText(messages[0]!).slice(0, 300)).toBe(false);
		expect((await readFile(join(project, "big.txt"), "utf8")).split("\nCHANGED\n").length).toBe(51);
	}, 60_000);
});
