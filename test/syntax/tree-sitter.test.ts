import { describe, expect, it } from "vitest";
import {
	createTreeSitterParser,
	loadTreeSitterLanguage,
	loadTreeSitterRuntime,
	treeSitterGrammarPath,
	vscodeTreeSitterGrammar,
} from "../../src/syntax/index.js";

describe("tree-sitter loader", () => {
	it("starts the runtime once and loads each grammar once", async () => {
		const [first, second] = await Promise.all([loadTreeSitterRuntime(), loadTreeSitterRuntime()]);
		expect(first).toBe(second);
		const grammar = vscodeTreeSitterGrammar("bash");
		expect(await loadTreeSitterLanguage(grammar)).toBe(await loadTreeSitterLanguage(grammar));
	});

	it("parses with a grammar and reports errors", async () => {
		const parser = await createTreeSitterParser(vscodeTreeSitterGrammar("bash"));
		const good = parser.parse("echo hi | wc -c\n");
		const bad = parser.parse("if true; then echo\n");
		expect(good?.rootNode.hasError).toBe(false);
		expect(bad?.rootNode.hasError).toBe(true);
		good?.delete();
		bad?.delete();
		parser.delete();
	});

	it("fails clearly for a grammar that is not installed, and recovers", async () => {
		const missing = { package: "@vscode/tree-sitter-wasm", file: "wasm/tree-sitter-nothing.wasm" };
		await expect(loadTreeSitterLanguage(missing)).rejects.toThrow();
		expect(treeSitterGrammarPath(vscodeTreeSitterGrammar("python"))).toMatch(/tree-sitter-python\.wasm$/);
	});
});
