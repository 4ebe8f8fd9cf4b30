// The syntax check in each tool that changes files: write, apply_patch (judged on the whole patch)
// and notebook cell edits; and the setting that turns refusals into warnings or the check off.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createApplyPatchTool } from "../../src/tools/apply-patch.js";
import { createEditTool } from "../../src/tools/edit.js";
import { createWriteTool } from "../../src/tools/write.js";
import { makeNotebook } from "../helpers/make-notebook.js";
import { useTempDir } from "../helpers/temp-dir.js";

const temp = useTempDir();
const GOOD = "export function add(a: number, b: number): number {\n\treturn a + b;\n}\n";
const BAD = "export function add(a: number, b: number): number {\n\treturn (a + b;\n}\n";

function textOf(result: { content: { type: string; text?: string }[] }): string {
	return result.content.map((part) => part.text ?? "").join("\n");
}

describe("syntax check in write", () => {
	it("refuses to replace a file that parses with one that does not, and writes nothing", async () => {
		const path = join(temp(), "add.ts");
		await writeFile(path, GOOD);
		const write = createWriteTool(temp());
		await expect(write.execute("1", { path: "add.ts", content: BAD }, undefined)).rejects.toThrow(
			/add\.ts parses as TypeScript now, and would not after this change[\s\S]*line 2, column 15: missing "\)"/,
		);
		expect(await readFile(path, "utf8")).toBe(GOOD);
		const forced = await write.execute("2", { path: "add.ts", content: BAD, allow_syntax_errors: true }, undefined);
		expect(textOf(forced)).toContain("[Syntax: add.ts had no syntax errors before this change");
		expect(await readFile(path, "utf8")).toBe(BAD);
	});

	it("refuses a new file that does not parse, and creates nothing", async () => {
		const write = createWriteTool(temp());
		await expect(write.execute("1", { path: "new.py", content: "def f(:\n    pass\n" }, undefined)).rejects.toThrow(
			/line 1, column/,
		);
		await expect(readFile(join(temp(), "new.py"))).rejects.toThrow(/ENOENT/);
	});

	it("warns instead with syntaxCheck: warn, and does not parse with off", async () => {
		const path = join(temp(), "add.ts");
		await writeFile(path, GOOD);
		const warned = await createWriteTool(temp(), { syntaxCheck: "warn" }).execute(
			"1",
			{ path: "add.ts", content: BAD },
			undefined,
		);
		expect(textOf(warned)).toContain("line 2, column 15");
		await writeFile(path, GOOD);
		const off = await createWriteTool(temp(), { syntaxCheck: "off" }).execute(
			"1",
			{ path: "add.ts", content: BAD },
			undefined,
		);
		expect(textOf(off)).not.toContain("[Syntax:");
		expect(off.details?.syntax).toBeUndefined();
	});
});

describe("syntax check in apply_patch", () => {
	it("refuses a patch that breaks one of its files and writes none of them", async () => {
		await writeFile(join(temp(), "add.ts"), GOOD);
		await writeFile(join(temp(), "notes.md"), "old\n");
		const patch = [
			"*** Begin Patch",
			"*** Update File: notes.md",
			"-old",
			"+new",
			"*** Update File: add.ts",
			"-\treturn a + b;",
			"+\treturn (a + b;",
			"*** End Patch",
		].join("\n");
		const tool = createApplyPatchTool(temp());
		await expect(tool.execute("1", { patch }, undefined)).rejects.toThrow(
			/add\.ts parses as TypeScript now[\s\S]*line 2/,
		);
		expect(await readFile(join(temp(), "notes.md"), "utf8")).toBe("old\n");
		expect(await readFile(join(temp(), "add.ts"), "utf8")).toBe(GOOD);
	});

	it("applies a patch whose files all parse in the end, and says so in details", async () => {
		await writeFile(join(temp(), "a.py"), "def one():\n    return 1\n\n\ndef two():\n    return 2\n");
		const patch = [
			"*** Begin Patch",
			"*** Update File: a.py",
			" def one():",
			"-    return 1",
			"+    return (1 +",
			"+            1)",
			"*** Add File: b.py",
			"+def three():",
			"+    return 3",
			"*** End Patch",
		].join("\n");
		const result = await createApplyPatchTool(temp()).execute("1", { patch }, undefined);
		expect(result.details?.syntax?.map((file) => file.status)).toEqual(["clean", "clean"]);
	});
});

describe("syntax check in notebook cell edits", () => {
	it("refuses a code cell edit that breaks the cell's Python, and applies a markdown one", async () => {
		const path = join(temp(), "n.ipynb");
		const notebook = makeNotebook([
			{ cell_type: "markdown", source: "# Title" },
			{ cell_type: "code", source: "total = sum([1, 2])\nprint(total)\n" },
		]);
		await writeFile(path, notebook);
		const edit = createEditTool(temp());
		await expect(
			edit.execute("1", { path: "n.ipynb", cell: 2, old_string: "sum([1, 2])", new_string: "sum([1, 2)" }, undefined),
		).rejects.toThrow(/cell 2 of n\.ipynb parses as Python now[\s\S]*line 1, column/);
		expect(await readFile(path, "utf8")).toBe(notebook);
		await edit.execute("2", { path: "n.ipynb", cell: 1, new_source: "# Title (" }, undefined);
		const fine = await edit.execute(
			"3",
			{ path: "n.ipynb", cell: 2, new_source: "total = sum([1, 2, 3])\n" },
			undefined,
		);
		expect(fine.details?.syntax?.[0]?.status).toBe("clean");
	});
});

describe("which files the syntax check reads", () => {
	it("takes a file named like an object's member (toString, constructor) for no language", async () => {
		const write = createWriteTool(temp());
		for (const name of ["toString", "constructor", "__proto__", "hasOwnProperty"]) {
			const result = await write.execute(name, { path: name, content: "x(\n" }, undefined);
			expect(result.details?.syntax).toBeUndefined();
			expect(await readFile(join(temp(), name), "utf8")).toBe("x(\n");
		}
	});
});
