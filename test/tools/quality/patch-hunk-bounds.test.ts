// apply_patch seeks each hunk (unique) in the rest of the file after the hunk before it: 100,000
// hunks on an 8 MB file searched for more than 5 minutes (8,000: 63 s), so a file's hunks were
// bounded by hunks × file size ≤ 2^30 and 20,000 hunks on it were refused. Now a hunk whose lines
// occur exactly and once is found through a line index (line-index.ts) at the cost of the places
// its rarest line occurs; only the hunks left to the full search (a single line, a miss, a
// tolerant match) spend the 2^30-character budget, and past it the call is refused, nothing written.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { executeToolCalls } from "../../../src/engine/execute-tool-calls.js";
import { createTools } from "../../../src/tools/index.js";
import { createLocalWorkspace } from "../../../src/workspace/index.js";
import { resultText } from "../../helpers/results.js";
import { useTempDir } from "../../helpers/temp-dir.js";

const dir = useTempDir();

const lines = Array.from({ length: 250_000 }, (_, index) => `line ${index} of a large generated file`);
const original = `${lines.join("\n")}\n`;

async function applyPatch(project: string, patchLines: readonly string[]) {
	const tools = Object.values(createTools(createLocalWorkspace(project)));
	const patch = ["*** Begin Patch", "*** Update File: big.txt", ...patchLines, "*** End Patch"].join("\n");
	const { messages } = await executeToolCalls({
		tools,
		toolCalls: [{ type: "toolCall", id: "1", name: "apply_patch", arguments: { patch } }],
	});
	return messages[0]!;
}

describe("apply_patch with thousands of hunks for an 8 MB file", () => {
	it("applies 20,000 hunks whose lines occur once (refused before: 20,000 × 9 MB passed the bound)", async () => {
		const project = dir();
		await writeFile(join(project, "big.txt"), original);
		const hunks: string[] = [];
		for (let index = 0; index < 40_000; index += 2)
			hunks.push("@@", ` ${lines[index]}`, `-${lines[index + 1]}`, "+CHANGED");
		const result = await applyPatch(project, hunks);
		expect(result.isError, resultText(result).slice(0, 400)).toBe(false);
		const expected = lines.map((line, index) => (index < 40_000 && index % 2 === 1 ? "CHANGED" : line));
		expect(await readFile(join(project, "big.txt"), "utf8")).toBe(`${expected.join("\n")}\n`);
	}, 120_000);

	it("refuses 100,000 single-line hunks (each sought through the rest of the file) and changes nothing", async () => {
		const project = dir();
		await writeFile(join(project, "big.txt"), original);
		const hunks: string[] = [];
		for (let index = 0; index < 100_000; index++) hunks.push("@@", `-${lines[index]}`, "+CHANGED");
		const result = await applyPatch(project, hunks);
		expect(result.isError).toBe(true);
		expect(resultText(result)).toMatch(
			/100,000 hunks for big\.txt .* passed apply_patch's bound at hunk [\d,]+\. .* at most \d+ of those for a file this size/,
		);
		expect(await readFile(join(project, "big.txt"), "utf8")).toBe(original);
	}, 120_000);

	it("still applies 50 hunks to it", async () => {
		const project = dir();
		await writeFile(join(project, "big.txt"), original);
		const hunks: string[] = [];
		for (let index = 0; index < 100; index += 2)
			hunks.push("@@", ` ${lines[index]}`, `-${lines[index + 1]}`, "+CHANGED");
		const result = await applyPatch(project, hunks);
		expect(result.isError, resultText(result).slice(0, 300)).toBe(false);
		expect((await readFile(join(project, "big.txt"), "utf8")).split("\nCHANGED\n").length).toBe(51);
	}, 60_000);
});
