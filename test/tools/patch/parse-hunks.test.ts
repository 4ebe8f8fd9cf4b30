// A hunk is kept as its kinds and its old and new texts (no object per line: a 9 MB patch of
// 100,000 hunks held 49 MB of line objects, now 27 MB); `lines` is rebuilt from them for callers.
import { describe, expect, it } from "vitest";
import { parsePatch } from "../../../src/tools/index.js";

describe("parsePatch's hunks", () => {
	it("keep the sought and the replacing text, and give their lines as before", () => {
		const [operation] = parsePatch(
			[
				"*** Begin Patch",
				"*** Update File: a.txt",
				"@@ def f():",
				" keep",
				"-old",
				"",
				"+new",
				"+",
				"*** End Patch",
			].join("\r\n"),
		);
		expect(operation?.kind).toBe("update");
		const hunk = operation?.kind === "update" ? operation.hunks[0] : undefined;
		expect(hunk?.anchors).toEqual(["def f():"]);
		expect(hunk?.kinds).toBe(" - ++");
		expect(hunk?.oldText).toBe("keep\nold\n\n");
		expect(hunk?.newText).toBe("keep\n\nnew\n\n");
		expect(hunk?.lines).toEqual([
			{ kind: " ", text: "keep" },
			{ kind: "-", text: "old" },
			{ kind: " ", text: "" },
			{ kind: "+", text: "new" },
			{ kind: "+", text: "" },
		]);
	});

	it("reads a fenced patch with lone carriage returns as line breaks", () => {
		const operations = parsePatch(
			["```diff", "*** Begin Patch", "*** Add File: b.txt", "+x", "+y", "*** End Patch", "```", ""].join("\r"),
		);
		expect(operations).toEqual([{ kind: "add", path: "b.txt", content: "x\ny\n" }]);
	});
});
