// An edit whose old_string is found nowhere names the closest text and what differs there, word by
// word, so the next call can succeed: a renamed identifier, other quotes, a changed number. Nothing
// is written, and a file with nothing close gets the plain advice.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createEditTool } from "../../../src/tools/edit.js";
import { useTempDir } from "../../helpers/temp-dir.js";

const temp = useTempDir();
const SOURCE = `import { readFile } from "node:fs/promises";

export async function loadConfig(path) {
	const text = await readFile(path, "utf8");
	const retries = 3;
	return { ...JSON.parse(text), retries };
}
`;

async function missOf(old_string: string): Promise<string> {
	const path = join(temp(), "config.js");
	await writeFile(path, SOURCE);
	const edit = createEditTool(temp());
	const error = await edit.execute("1", { path, old_string, new_string: "changed" }, undefined).then(
		() => new Error("the edit was applied"),
		(caught: unknown) => caught as Error,
	);
	expect(await readFile(path, "utf8")).toBe(SOURCE);
	return error.message;
}

describe("a missed edit teaches what differs", () => {
	it("a renamed identifier", async () => {
		const message = await missOf('const content = await readFile(path, "utf8");');
		expect(message).toContain("The closest text is at line 4");
		expect(message).toContain('"content" where the file has "text"');
		expect(message).toContain('  4\tconst text = await readFile(path, "utf8");'.replace("  4\t", "  4\t\t"));
	});

	it("other quotes, over several lines", async () => {
		const message = await missOf(
			"export async function loadConfig(path) {\n\tconst text = await readFile(path, 'utf8');",
		);
		expect(message).toContain("The closest text is at lines 3-4");
		expect(message).toContain(`"'" where the file has "\\""`);
	});

	it("a changed number", async () => {
		const message = await missOf("const retries = 5;");
		expect(message).toContain("line 5");
		expect(message).toContain('"5" where the file has "3"');
	});

	it("nothing close: the plain advice", async () => {
		const message = await missOf("class Parser extends Base {}");
		expect(message).not.toContain("closest text");
		expect(message).toContain("Read the file to see its current content");
	});

	it("a large file is searched within its bounds and still answers", async () => {
		const path = join(temp(), "big.js");
		const lines = Array.from({ length: 100_000 }, (_, index) => `const value${index} = compute(${index}, "x");`);
		await writeFile(path, `${lines.join("\n")}\n`);
		const edit = createEditTool(temp());
		const error = await edit
			.execute("1", { path, old_string: 'const value77777 = compute(77777, "y");', new_string: "x" }, undefined)
			.then(
				() => new Error("applied"),
				(caught: unknown) => caught as Error,
			);
		expect(error.message).toContain("old_string was not found");
		expect(error.message).toContain("The closest text is at line 77778");
		expect(error.message).toContain('"y" where the file has "x"');
	});
});
