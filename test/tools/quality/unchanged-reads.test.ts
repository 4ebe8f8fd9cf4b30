import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createEditTool } from "../../../src/tools/edit.js";
import { createReadTool } from "../../../src/tools/read.js";
import { resultText } from "../../helpers/results.js";
import { useTempDir } from "../../helpers/temp-dir.js";

const temp = useTempDir();

describe("unchanged re-reads", () => {
	it("answers a repeated read of an unchanged range in one line, unless refresh is set", async () => {
		await writeFile(join(temp(), "a.txt"), "one\ntwo\nthree\n");
		const read = createReadTool(temp());
		const first = await read.execute("1", { path: "a.txt" }, undefined);
		expect(resultText(first)).toBe("     1\tone\n     2\ttwo\n     3\tthree");
		const again = await read.execute("2", { path: "a.txt" }, undefined);
		expect(resultText(again)).toMatch(
			/^a\.txt is unchanged since your last read at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(same content, same range\)/,
		);
		expect(again.details).toMatchObject({ kind: "text", unchanged: true, endLine: 3 });
		expect(resultText(await read.execute("3", { path: "a.txt", refresh: true }, undefined))).toBe(resultText(first));
		// Another range is another read.
		expect(resultText(await read.execute("4", { path: "a.txt", offset: 2 }, undefined))).toContain("     2\ttwo");
	});

	it("returns the content again once the file changed (here by an edit)", async () => {
		await writeFile(join(temp(), "a.txt"), "one\ntwo\n");
		const read = createReadTool(temp());
		await read.execute("1", { path: "a.txt" }, undefined);
		await createEditTool(temp()).execute("2", { path: "a.txt", old_string: "two", new_string: "2" }, undefined);
		expect(resultText(await read.execute("3", { path: "a.txt" }, undefined))).toBe("     1\tone\n     2\t2");
	});

	it("compares by the text until the loop turns and by its hash after, both ways", async () => {
		// The hash of a new range is taken at the next turn of the event loop (the first hash of a
		// process is ~1 ms of a first read); a repeat may come before or after it.
		await writeFile(join(temp(), "a.txt"), "one\n");
		const read = createReadTool(temp());
		await read.execute("1", { path: "a.txt" }, undefined);
		expect(resultText(await read.execute("2", { path: "a.txt" }, undefined))).toContain("is unchanged since");
		await new Promise((resolve) => setImmediate(resolve));
		expect(resultText(await read.execute("3", { path: "a.txt" }, undefined))).toContain("is unchanged since");
		await writeFile(join(temp(), "a.txt"), "uno\n");
		expect(resultText(await read.execute("4", { path: "a.txt" }, undefined))).toBe("     1\tuno");
		await writeFile(join(temp(), "a.txt"), "one\n");
		await new Promise((resolve) => setImmediate(resolve));
		expect(resultText(await read.execute("5", { path: "a.txt" }, undefined))).toBe("     1\tone");
		expect(resultText(await read.execute("6", { path: "a.txt" }, undefined))).toContain("is unchanged since");
	});

	it("can be turned off per tool", async () => {
		await writeFile(join(temp(), "a.txt"), "one\n");
		const read = createReadTool(temp(), { unchangedReads: false });
		await read.execute("1", { path: "a.txt" }, undefined);
		expect(resultText(await read.execute("2", { path: "a.txt" }, undefined))).toBe("     1\tone");
	});
});
