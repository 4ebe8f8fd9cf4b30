import { describe, expect, it } from "vitest";
import { describeMiss } from "../../../src/tools/edit/diagnose.js";
import { MatchContext } from "../../../src/tools/edit/match-context.js";

describe("describeMiss", () => {
	// Two million short lines with non-ASCII text: folding line by line costs seconds here.
	const content = `${"café;\n".repeat(2_000_000)}if (ready) {\n\tgo(“now”);\n}\n`;

	it("finds a near match in a large file in one scan, with the right line numbers", () => {
		const started = performance.now();
		const message = describeMiss(new MatchContext(content), 'if (ready) { go("now"); }', "x");
		expect(performance.now() - started).toBeLessThan(1500);
		expect(message).toContain("A near match at line 2000001 differs only in whitespace or Unicode");
		expect(message).toContain("  2000002\t\tgo(“now”);");
	});

	it("misses in a large file quickly", () => {
		const started = performance.now();
		const message = describeMiss(new MatchContext(content), "if (absent) { go(); }", "x");
		expect(performance.now() - started).toBeLessThan(1500);
		expect(message).toContain("Read the file to see its current content");
	});
});
