// Which diagnostics a change introduced: matched by message and code, lines shifted by the change.
import { describe, expect, it } from "vitest";
import { type FileDiagnostic, introducedDiagnostics } from "../../src/diagnostics/index.js";

const error = (line: number, message: string, code = "2322"): FileDiagnostic => ({
	line,
	column: 1,
	severity: "error",
	message,
	code,
});

describe("introducedDiagnostics", () => {
	it("keeps an old diagnostic old when lines above it were added", () => {
		const beforeText = "a\nb\nc\n";
		const afterText = "a\nnew1\nnew2\nb\nc\n";
		const result = introducedDiagnostics({
			beforeText,
			afterText,
			before: [error(3, "old")],
			after: [error(5, "old"), error(2, "fresh")],
		});
		expect(result.introduced).toEqual([error(2, "fresh")]);
		expect(result.resolved).toBe(0);
	});

	it("counts an equal message on another line as new, and the old one as resolved", () => {
		const text = "a\nb\nc\nd\n";
		const result = introducedDiagnostics({
			beforeText: text,
			afterText: "a\nB\nc\nd\n",
			before: [error(4, "Cannot find name 'x'.")],
			after: [error(1, "Cannot find name 'x'.")],
		});
		expect(result.introduced).toEqual([error(1, "Cannot find name 'x'.")]);
		expect(result.resolved).toBe(1);
	});

	it("excuses a diagnostic inside the rewritten block when an equal one was in the block it replaced", () => {
		const result = introducedDiagnostics({
			beforeText: "a\nbad line\nz\n",
			afterText: "a\nprefix\nbad line changed\nz\n",
			before: [error(2, "broken")],
			after: [error(3, "broken")],
		});
		expect(result.introduced).toEqual([]);
	});

	it("tells apart the same message with another code, and counts each copy once", () => {
		const result = introducedDiagnostics({
			beforeText: "x\n",
			afterText: "x\n",
			before: [error(1, "m", "1")],
			after: [error(1, "m", "1"), error(1, "m", "1"), error(1, "m", "2")],
		});
		expect(result.introduced).toEqual([error(1, "m", "1"), error(1, "m", "2")]);
	});
});
