import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createEditTool } from "../../src/tools/edit.js";
import type { NotebookEditDetails } from "../../src/tools/notebook/edit-notebook.js";
import { makeNotebook, sourceLines } from "../helpers/make-notebook.js";
import { resultText } from "../helpers/results.js";
import { useTempDir } from "../helpers/temp-dir.js";

const temp = useTempDir();

type NotebookEditInput = Parameters<ReturnType<typeof createEditTool>["execute"]>[1];

async function edit(args: NotebookEditInput) {
	const result = await createEditTool(temp()).execute("1", args, undefined);
	return { result, text: resultText(result), details: result.details as NotebookEditDetails };
}

const cells = [
	{ cell_type: "markdown" as const, source: sourceLines("# Analysis\nIntro text.") },
	{
		cell_type: "code" as const,
		source: sourceLines("import math\nx = math.pi\nprint(x)"),
		execution_count: 1,
		outputs: [{ output_type: "stream", name: "stdout", text: ["3.14159\n"] }],
	},
	{ cell_type: "code" as const, source: "y = 2\nz = 3" },
];

/** The notebook with cell `index`'s source replaced, re-serialized exactly as `makeNotebook` writes. */
function expected(index: number, source: string | string[], indent = 1): string {
	const changed = cells.map((cell, position) => (position === index ? { ...cell, source } : cell));
	return makeNotebook(changed, indent);
}

describe("edit tool: notebook cells", () => {
	it("replaces a cell's whole source, keeping the array-of-lines style and every other byte", async () => {
		const path = join(temp(), "a.ipynb");
		await writeFile(path, makeNotebook(cells));
		const { text, details } = await edit({
			path: "a.ipynb",
			cell: 2,
			new_source: "import math\nx = math.tau\nprint(x)\n",
		});
		const after = await readFile(path, "utf8");
		expect(after).toBe(expected(1, sourceLines("import math\nx = math.tau\nprint(x)\n")));
		expect(JSON.parse(after).cells[1].outputs[0].text).toEqual(["3.14159\n"]);
		expect(text).toContain("Edited cell 2 (code) of a.ipynb");
		expect(text).toContain("-x = math.pi");
		expect(text).toContain("+x = math.tau");
		expect(details).toMatchObject({ cell: 2, cellType: "code" });
	});

	it("replaces old_string within one cell only, keeping a string source a string", async () => {
		const path = join(temp(), "b.ipynb");
		await writeFile(path, makeNotebook(cells, 2));
		await edit({ path: "b.ipynb", cell: 3, old_string: "z = 3", new_string: "z = 4" });
		expect(await readFile(path, "utf8")).toBe(expected(2, "y = 2\nz = 4", 2));
	});

	it("looks for old_string in the named cell, not elsewhere in the file", async () => {
		const path = join(temp(), "c.ipynb");
		const before = makeNotebook(cells);
		await writeFile(path, before);
		await expect(edit({ path: "c.ipynb", cell: 3, old_string: "math.pi", new_string: "1" })).rejects.toThrow(
			/cell 3 of c\.ipynb/,
		);
		expect(await readFile(path, "utf8")).toBe(before);
	});

	it("keeps a compact (one-line) JSON file compact and non-ASCII text as it is", async () => {
		const path = join(temp(), "d.ipynb");
		const compact = JSON.stringify({
			cells: [{ cell_type: "code", source: ["a = 1\n", "b = 2"], outputs: [] }],
			nbformat: 4,
		});
		await writeFile(path, compact);
		await edit({ path: "d.ipynb", cell: 1, old_string: "b = 2", new_string: "b = 'é'" });
		const after = await readFile(path, "utf8");
		expect(after).toBe(compact.replace('"b = 2"', `"b = 'é'"`));
	});

	it("escapes non-ASCII text when the notebook does (Python's ensure_ascii)", async () => {
		const path = join(temp(), "ascii.ipynb");
		const escaped = (json: string) =>
			json.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
		const original = [{ cell_type: "markdown" as const, source: sourceLines("Caf\u00e9 menu\nprices") }];
		await writeFile(path, escaped(makeNotebook(original)));
		await edit({ path: "ascii.ipynb", cell: 1, old_string: "prices", new_string: "prix: 5 €" });
		const after = await readFile(path, "utf8");
		expect(after).toBe(
			escaped(makeNotebook([{ cell_type: "markdown", source: sourceLines("Caf\u00e9 menu\nprix: 5 €") }])),
		);
		expect(after).toContain("\\u20ac");
	});

	it("fills an empty source array at the file's indentation", async () => {
		const path = join(temp(), "e.ipynb");
		const empty = [{ cell_type: "code" as const, source: [] as string[] }];
		await writeFile(path, makeNotebook(empty));
		await edit({ path: "e.ipynb", cell: 1, new_source: "first\nsecond" });
		expect(await readFile(path, "utf8")).toBe(makeNotebook([{ cell_type: "code", source: ["first\n", "second"] }]));
	});

	it("refuses a cell number out of range and a file that is not a notebook, changing nothing", async () => {
		const path = join(temp(), "f.ipynb");
		const before = makeNotebook(cells);
		await writeFile(path, before);
		await expect(edit({ path: "f.ipynb", cell: 9, new_source: "x" })).rejects.toThrow(
			/has 3 cells; cell 9 does not exist/,
		);
		await writeFile(join(temp(), "plain.txt"), "hello\n");
		await expect(edit({ path: "plain.txt", cell: 1, new_source: "x" })).rejects.toThrow(/not a Jupyter notebook/);
		expect(await readFile(path, "utf8")).toBe(before);
	});

	it("edits a notebook as plain text when no cell is given", async () => {
		const path = join(temp(), "g.ipynb");
		await writeFile(path, makeNotebook(cells));
		await edit({ path: "g.ipynb", old_string: '"Intro text."', new_string: '"Intro."' });
		expect(JSON.parse(await readFile(path, "utf8")).cells[0].source).toEqual(["# Analysis\n", "Intro."]);
	});
});
