import { describe, expect, it } from "vitest";
import { planExactBytes } from "../../../src/tools/edit/fast-path.js";
import type { EditRequest } from "../../../src/tools/edit/matching/match.js";
import { planEdits } from "../../../src/tools/edit/plan.js";

const edit = (oldString: string, newString: string, replaceAll = false): EditRequest => ({
	oldString,
	newString,
	replaceAll,
});

/** The byte path must produce exactly what the text path produces, whenever it takes the edit. */
function expectSameAsTextPath(content: string, requests: EditRequest[]) {
	const fast = planExactBytes({ body: Buffer.from(content), prefix: Buffer.alloc(0), requests });
	expect(fast, "the byte path should take this edit").toBeDefined();
	const plan = planEdits(content, requests);
	expect(fast?.output.toString("utf8")).toBe(plan.content);
	expect(fast?.replacements.length).toBe(plan.replacements.length);
}

describe("planExactBytes", () => {
	it("matches the text path on LF, CRLF and mixed files, multi-byte text and several edits", () => {
		expectSameAsTextPath("a\nb\nc\n", [edit("b", "B1\nB2")]);
		expectSameAsTextPath("a\r\nb\r\nc\r\n", [edit("b", "B1\nB2\r\nB3")]);
		expectSameAsTextPath("a\r\nb\nc\r\nd", [edit("c", "c1\nc2"), edit("d", "d1\nd2"), edit("b", "b1\nb2")]);
		expectSameAsTextPath("a\r\nb\r\n", [edit("\nb", "\nB")]);
		expectSameAsTextPath("héllo wörld ✓ 𝄞\nnext\n", [edit("wörld ✓ 𝄞", "welt 🎉"), edit("next", "nächste")]);
		expectSameAsTextPath("aaa-aaa-aa", [edit("aa", "b", true)]);
		expectSameAsTextPath("no newline", [edit("new", "old\nline")]);
	});

	it("keeps the prefix (BOM) and reports offsets relative to the body", () => {
		const bom = Buffer.from([0xef, 0xbb, 0xbf]);
		const fast = planExactBytes({ body: Buffer.from("x = 1\n"), prefix: bom, requests: [edit("1", "2")] });
		expect([...(fast?.output ?? [])]).toEqual([...bom, ...Buffer.from("x = 2\n")]);
		expect(fast?.replacements[0]).toMatchObject({ start: 4, end: 5, newStart: 4, newEnd: 5 });
		expect(fast?.body.toString()).toBe("x = 2\n");
	});

	it("leaves misses, ambiguity, overlaps, empty and no-op edits to the text path", () => {
		const none = (content: string, requests: EditRequest[]) =>
			expect(planExactBytes({ body: Buffer.from(content), prefix: Buffer.alloc(0), requests })).toBeUndefined();
		none("a b a", [edit("a", "c")]);
		none("aaa", [edit("aa", "b")]);
		none("abc", [edit("x", "y")]);
		none("abc", [edit("", "y")]);
		none("abc", [edit("b", "b")]);
		none("a\r\nb", [edit("a\r\nb", "a\nb")]);
		none("one two three", [edit("one two", "1"), edit("two three", "3")]);
	});
});
