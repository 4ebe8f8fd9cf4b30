// False refusals on files nobody wrote for this test: every JSON file installed in node_modules that
// JSON.parse accepts (package manifests, schemas, fixtures, tsconfig files) must read as clean when
// created, as the check sees a new file. A refusal here is a refusal a model would meet on a real
// project.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkSyntaxChange } from "../../src/syntax/index.js";

async function* jsonFiles(folder: string, depth = 0): AsyncGenerator<string> {
	if (depth > 8) return;
	for (const entry of await readdir(folder, { withFileTypes: true })) {
		const path = join(folder, entry.name);
		if (entry.isDirectory()) yield* jsonFiles(path, depth + 1);
		else if (entry.isFile() && entry.name.endsWith(".json")) yield path;
	}
}

describe("syntax check on real files", () => {
	it("reads every valid JSON file of node_modules as clean", async () => {
		let checked = 0;
		const refused: string[] = [];
		for await (const path of jsonFiles(join(process.cwd(), "node_modules"))) {
			const text = await readFile(path, "utf8");
			try {
				JSON.parse(text);
			} catch {
				continue;
			}
			checked++;
			const verdict = await checkSyntaxChange({ path, before: undefined, after: text });
			if (verdict.status !== "clean") refused.push(`${path}: ${verdict.status} ${JSON.stringify(verdict.added[0])}`);
		}
		expect(checked).toBeGreaterThan(100);
		expect(refused).toEqual([]);
	}, 120_000);
});
