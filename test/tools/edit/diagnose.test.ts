import { describe, expect, it } from "vitest";
import { describeMiss } from "../../../src/tools/edit/matching/diagnose.js";
import { MatchContext } from "../../../src/tools/edit/matching/match-context.js";
import { cpuMsSince } from "../../helpers/cpu-time.js";

describe("describeMiss", () => {
	// Two million short lines with non-ASCII text: folding line by line costs seconds here.
	const content = `${"café;\n".repeat(2_000_000)}if (ready) {\n\tgo(“now”);\n}\n`;

	it("finds a near match in a large file in one scan, with the right line numbers", () => {
		const started = process.cpuUsage();
		const message = describeMiss(new MatchContext(content), 'if (ready) { go("now"); }', "x");
		expect(cpuMsSince(started)).toBeLessThan(1500);
		expect(message).toContain("A near match at line 2000001 differs only in whitespace or Unicode");
		expect(message).toContain("  2000002\t\tgo(“now”);");
	});

	it("misses in a large file quickly", () => {
		const started = process.cpuUsage();
		const message = describeMiss(new MatchContext(content), "if (absent) { go(); }", "x");
		expect(cpuMsSince(started)).toBeLessThan(1500);
		expect(message).toContain("Read the file to see its current content");
	});
});

describe("quoting a near match", () => {
	it("shows invisible characters as JSON escapes the model can copy", () => {
		const message = describeMiss(new MatchContext("ab\u200bcd = 1\n"), "abcd = 1", "x");
		expect(message).toContain("  1\tab\\u200bcd = 1");
		expect(message).toContain("\\uXXXX stands for an invisible character");
	});

	it("adds no escape note when nothing is invisible", () => {
		const message = describeMiss(new MatchContext("if (a)  {\n"), "if (a) {", "x");
		expect(message).toContain("  1\tif (a)  {");
		expect(message).not.toContain("\\uXXXX");
	});
});

describe("the already-applied diagnosis", () => {
	const file = "import { x } from './x';\nconst total = x + 1;\nexport default total;\n";

	it("is not made from a short new_string that happens to occur once", () => {
		for (const [needle, replacement] of [
			["let total = y + 1;", "x"],
			["var answer = 42;", "const"],
			["function missing() {}", "total"],
		] as const) {
			const message = describeMiss(new MatchContext(file), needle, replacement);
			expect(message).not.toContain("already applied");
		}
	});

	it("is not made from a deletion, whose new_string was in the file before the edit too", () => {
		const message = describeMiss(
			new MatchContext(file),
			"const total = x + 1;\nconsole.log(total);",
			"const total = x + 1;",
		);
		expect(message).not.toContain("already applied");
	});

	it("is made when the changed text sits in the context old_string and new_string share", () => {
		const message = describeMiss(new MatchContext(file), "const total = x + 2;", "const total = x + 1;");
		expect(message).toContain("new_string already occurs once, at line 2: the edit looks already applied");
	});

	it("is made for a long new_string that occurs once", () => {
		const added = "export function double(value: number): number {\n\treturn value * 2;\n}\n";
		const message = describeMiss(new MatchContext(`${file}${added}`), "// end\n", added);
		expect(message).toContain("the edit looks already applied");
	});
});
