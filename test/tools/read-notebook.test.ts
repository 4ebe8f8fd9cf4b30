import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { createReadTool, type ReadNotebookDetails, type ReadToolOptions } from "../../src/tools/read.js";
import { makeNotebook, sourceLines } from "../helpers/make-notebook.js";
import { resultText } from "../helpers/results.js";
import { useTempDir } from "../helpers/temp-dir.js";

const temp = useTempDir();

async function read(args: { path: string; offset?: number; limit?: number }, options?: ReadToolOptions) {
	const result = await createReadTool(temp(), options).execute("1", args, undefined);
	return { result, text: resultText(result), details: result.details as ReadNotebookDetails };
}

async function pngBase64(): Promise<string> {
	const png = await sharp({ create: { width: 4, height: 3, channels: 3, background: "#ff0000" } })
		.png()
		.toBuffer();
	return png.toString("base64");
}

describe("read tool: Jupyter notebooks", () => {
	it("shows cells in order with number, type, source and outputs", async () => {
		const notebook = makeNotebook([
			{ cell_type: "markdown", source: sourceLines("# Title\nSome prose.") },
			{
				cell_type: "code",
				source: "x = 1\nprint(x)",
				execution_count: 3,
				outputs: [
					{ output_type: "stream", name: "stdout", text: ["1\n"] },
					{ output_type: "execute_result", execution_count: 3, data: { "text/plain": ["42"] }, metadata: {} },
					{
						output_type: "error",
						ename: "ValueError",
						evalue: "bad",
						traceback: ["\u001b[0;31mValueError\u001b[0m: bad"],
					},
				],
			},
		]);
		await writeFile(join(temp(), "n.ipynb"), notebook);
		const { text, details } = await read({ path: "n.ipynb" });
		expect(text).toContain("offset and limit count cells");
		expect(text).toContain("[Cell 1 of 2 · markdown]\n# Title\nSome prose.");
		expect(text).toContain(
			"[Cell 2 of 2 · code · execution_count 3]\nx = 1\nprint(x)\n[output: stdout]\n1\n[output: text]\n42",
		);
		expect(text).toContain("[output: error ValueError: bad]\nValueError: bad");
		expect(text).not.toContain("\u001b");
		expect(text.indexOf("[Cell 1")).toBeLessThan(text.indexOf("[Cell 2"));
		expect(details).toMatchObject({ kind: "notebook", totalCells: 2, startCell: 1, endCell: 2, truncated: false });
	});

	it("returns image/png outputs as image content", async () => {
		const png = await pngBase64();
		const notebook = makeNotebook([
			{
				cell_type: "code",
				source: "plot()",
				outputs: [
					{ output_type: "display_data", data: { "image/png": `${png}\n`, "text/plain": ["<Figure>"] }, metadata: {} },
				],
			},
		]);
		await writeFile(join(temp(), "plot.ipynb"), notebook);
		const { result, text, details } = await read({ path: "plot.ipynb" });
		const images = result.content.filter((block) => block.type === "image");
		expect(images).toHaveLength(1);
		expect(images[0]).toMatchObject({ type: "image", mimeType: "image/png", data: png });
		expect(text).toContain("[output: image/png image");
		expect(text).toContain("Image output of cell 1");
		expect(details.imagesIncluded).toBe(1);
		const off = await read({ path: "plot.ipynb" }, { images: false });
		expect(off.result.content.some((block) => block.type === "image")).toBe(false);
		expect(off.text).toContain("1 image outputs not returned");
	});

	it("cuts a long text output to its budget with a marker", async () => {
		const long = Array.from({ length: 2000 }, (_, index) => `row ${index}\n`);
		const notebook = makeNotebook([
			{ cell_type: "code", source: "dump()", outputs: [{ output_type: "stream", name: "stdout", text: long }] },
		]);
		await writeFile(join(temp(), "log.ipynb"), notebook);
		const { text, details } = await read({ path: "log.ipynb" });
		expect(text).toContain("row 0\n");
		expect(text).not.toContain("row 1999");
		expect(text).toMatch(/\[output truncated, \d+ more characters\]/);
		expect(details.outputsCut).toBe(1);
	});

	it("pages by cell with offset and limit, and by the byte budget", async () => {
		const cells = Array.from({ length: 30 }, (_, index) => ({
			cell_type: "code" as const,
			source: `value_${index + 1} = ${index + 1}`,
		}));
		await writeFile(join(temp(), "many.ipynb"), makeNotebook(cells));
		const page = await read({ path: "many.ipynb", offset: 5, limit: 3 });
		expect(page.text).not.toContain("[Cell 4 of 30");
		expect(page.text).toContain("[Cell 5 of 30 · code]\nvalue_5 = 5");
		expect(page.text).toContain("[Cell 7 of 30");
		expect(page.text).not.toContain("[Cell 8 of 30");
		expect(page.text).toContain("Use offset=8 to continue.");
		expect(page.details).toMatchObject({ startCell: 5, endCell: 7, truncatedBy: "cells", nextOffset: 8 });
		const budget = await read({ path: "many.ipynb" }, { maxBytes: 300 });
		expect(budget.details.truncatedBy).toBe("bytes");
		expect(budget.text).toContain(`Use offset=${budget.details.endCell + 1} to continue.`);
		await expect(read({ path: "many.ipynb", offset: 31 })).rejects.toThrow(/the notebook has 30 cells/);
	});

	it("reads a .ipynb that is not notebook JSON as plain text", async () => {
		await writeFile(join(temp(), "odd.ipynb"), "not json at all\n");
		const { text, result } = await read({ path: "odd.ipynb" });
		expect(text).toContain("not json at all");
		expect((result.details as { kind: string }).kind).toBe("text");
	});
});
