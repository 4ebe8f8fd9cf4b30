// The syntax corpus through the real edit tool on real files: a break is refused with its line and
// the file left as it was, the same break with allow_syntax_errors is applied with a warning, edits
// that keep the file parsing and multi-edits that pass through a broken state are applied, and a
// file already broken is warned about its new error and changed.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createEditTool } from "../../src/tools/edit.js";
import { useTempDir } from "../helpers/temp-dir.js";
import { type CorpusEdit, corpus } from "./corpus.js";

const temp = useTempDir();

function applied(source: string, edit: CorpusEdit): string {
	expect(source.split(edit.old_string).length - 1).toBe(1);
	return source.replace(edit.old_string, () => edit.new_string);
}

function textOf(result: { content: { type: string; text?: string }[] }): string {
	return result.content.map((part) => part.text ?? "").join("\n");
}

async function fileWith(name: string, content: string): Promise<string> {
	const path = join(temp(), name);
	await writeFile(path, content);
	return path;
}

describe.each(corpus)("syntax corpus: $file", (entry) => {
	const edit = createEditTool(process.cwd());

	it("refuses the break with the error's line, and leaves the file as it was", async () => {
		const path = await fileWith(entry.file, entry.source);
		const call = edit.execute("1", { path, ...entry.breaks }, undefined);
		await expect(call).rejects.toThrow(new RegExp(`line ${entry.breaks.line}, column \\d+`));
		await expect(call).rejects.toThrow(/allow_syntax_errors: true/);
		expect(await readFile(path, "utf8")).toBe(entry.source);
	});

	it("applies the break with allow_syntax_errors, with a warning", async () => {
		const path = await fileWith(entry.file, entry.source);
		const result = await edit.execute("1", { path, ...entry.breaks, allow_syntax_errors: true }, undefined);
		expect(textOf(result)).toContain(`line ${entry.breaks.line}, column`);
		expect(result.details?.syntax?.[0]?.status).toBe("broken");
		expect(await readFile(path, "utf8")).toBe(applied(entry.source, entry.breaks));
	});

	it("applies an edit that keeps it parsing, without a note", async () => {
		const path = await fileWith(entry.file, entry.source);
		const result = await edit.execute("1", { path, ...entry.keeps }, undefined);
		expect(result.details?.syntax?.[0]?.status).toBe("clean");
		expect(textOf(result)).not.toContain("[Syntax:");
		expect(await readFile(path, "utf8")).toBe(applied(entry.source, entry.keeps));
	});

	it("judges a multi-edit on its result: two edits that each break it alone are applied together", async () => {
		const path = await fileWith(entry.file, entry.source);
		for (const alone of entry.through) {
			await expect(edit.execute("1", { path, ...alone }, undefined)).rejects.toThrow(/would not after this change/);
		}
		const result = await edit.execute("1", { path, edits: entry.through }, undefined);
		expect(result.details?.syntax?.[0]?.status).toBe("clean");
		expect(await readFile(path, "utf8")).toBe(applied(applied(entry.source, entry.through[0]), entry.through[1]));
	});

	it("applies a change to a file already broken, warning about the error it adds", async () => {
		const broken = applied(entry.source, entry.breaks);
		const path = await fileWith(entry.file, broken);
		const result = await edit.execute("1", { path, ...entry.through[0] }, undefined);
		expect(result.details?.syntax?.[0]?.status).toBe("worse");
		expect(textOf(result)).toMatch(/\[Syntax: .* had \d+ syntax errors? before this change/);
		expect(await readFile(path, "utf8")).toBe(applied(broken, entry.through[0]));
		await writeFile(path, broken);
		const calm = await edit.execute("2", { path, ...entry.keeps }, undefined);
		expect(textOf(calm)).not.toContain("[Syntax:");
	});
});
