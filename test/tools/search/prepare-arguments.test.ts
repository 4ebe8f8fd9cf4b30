import { describe, expect, it } from "vitest";
import { validateToolArguments } from "../../../src/engine/validation/validate.js";
import { createFindTool } from "../../../src/tools/find.js";
import { createGrepTool } from "../../../src/tools/grep.js";

describe("grep and find argument repair", () => {
	it("maps names from other tools onto grep's schema", () => {
		const tool = createGrepTool("/");
		const repaired = tool.prepareArguments?.({
			regex: "foo",
			glob: "*.ts",
			ignore_case: true,
			"-C": "2",
			head_limit: 5,
			directory: "src",
		});
		expect(validateToolArguments(tool, repaired)).toEqual({
			pattern: "foo",
			include: "*.ts",
			case_sensitive: false,
			context: 2,
			limit: 5,
			path: "src",
		});
	});

	it("keeps the canonical value when both names are given", () => {
		const tool = createGrepTool("/");
		expect(tool.prepareArguments?.({ pattern: "a", query: "b", case_sensitive: true, "-i": true })).toEqual({
			pattern: "a",
			case_sensitive: true,
		});
	});

	it("maps names from other tools onto find's schema", () => {
		const tool = createFindTool("/");
		expect(validateToolArguments(tool, tool.prepareArguments?.({ name: "*.md", dir: "docs" }))).toEqual({
			pattern: "*.md",
			path: "docs",
		});
	});
});
