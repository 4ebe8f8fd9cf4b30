import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createEditTool, type EditToolInput } from "../../../src/tools/edit.js";
import { useTempDir } from "../../helpers/temp-dir.js";

/** Edits that models clearly intended, and edits that must be refused, each on a real file. */

const tempDir = useTempDir();

async function edit(input: Omit<EditToolInput, "path">, content: string) {
	const path = join(tempDir(), "file.txt");
	await writeFile(path, content);
	const result = await createEditTool(tempDir()).execute("call", { path: "file.txt", ...input }, undefined);
	const text = result.content[0]?.type === "text" ? result.content[0].text : "";
	return { after: await readFile(path, "utf8"), details: result.details, text };
}

async function refusal(input: Omit<EditToolInput, "path">, content: string): Promise<string> {
	const path = join(tempDir(), "file.txt");
	await writeFile(path, content);
	try {
		await createEditTool(tempDir()).execute("call", { path: "file.txt", ...input }, undefined);
	} catch (error) {
		expect(await readFile(path, "utf8"), "a refused edit leaves the file as it was").toBe(content);
		return (error as Error).message;
	}
	throw new Error("expected the edit to be refused");
}

describe("quote straightening", () => {
	it("old and new the same text, matching curly quotes in the file: straightens them", async () => {
		const { after, details } = await edit(
			{ old_string: 'say "hi"', new_string: 'say "hi"' },
			"a\nsay \u201chi\u201d;\nb\n",
		);
		expect(after).toBe('a\nsay "hi";\nb\n');
		expect(details?.strategy).toBe("unicode");
	});

	it("an old_string found exactly and the same new_string is still refused as changing nothing", async () => {
		expect(await refusal({ old_string: "say", new_string: "say" }, "say it\n")).toMatch(
			/identical, so this edit would change nothing/,
		);
	});
});

describe("full-width forms", () => {
	it("ASCII old_string finds full-width punctuation and letters in the file, changing only the match", async () => {
		const content = "keep，this\nconst ＡＢＣ１２３ = f（a，b）;\nkeep（too）\n";
		const { after, details } = await edit({ old_string: "ABC123 = f(a,b)", new_string: "X = g(a)" }, content);
		expect(after).toBe("keep，this\nconst X = g(a);\nkeep（too）\n");
		expect(details?.strategy).toBe("unicode");
	});

	it("full-width old_string finds ASCII in the file", async () => {
		const { after } = await edit({ old_string: "ｆ（ａ，ｂ）；", new_string: "g();" }, "x = f(a,b);\n");
		expect(after).toBe("x = g();\n");
	});
});
