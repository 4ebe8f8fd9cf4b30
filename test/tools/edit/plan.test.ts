import { describe, expect, it } from "vitest";
import type { EditRequest } from "../../../src/tools/edit/matching/match.js";
import { planEdits } from "../../../src/tools/edit/plan.js";

const edit = (oldString: string, newString: string, replaceAll = false): EditRequest => ({
	oldString,
	newString,
	replaceAll,
});
const apply = (content: string, ...requests: EditRequest[]) => planEdits(content, requests);

describe("matching ladder", () => {
	it("exact match", () => {
		const plan = apply("alpha\nbeta\ngamma\n", edit("beta", "BETA"));
		expect(plan.content).toBe("alpha\nBETA\ngamma\n");
		expect(plan.strategies).toEqual(["exact"]);
	});

	it("line endings: LF old_string in a CRLF file; inserted lines get CRLF", () => {
		const plan = apply("a\r\nb\r\nc\r\n", edit("a\nb\n", "x\ny\n"));
		expect(plan.content).toBe("x\r\ny\r\nc\r\n");
		expect(plan.strategies).toEqual(["line-endings"]);
	});

	it("trailing whitespace: keeps bytes outside the span", () => {
		const content = "keep   \nif (x) {  \n  go();\t\n}\nkeep\t\n";
		const plan = apply(content, edit("if (x) {\n  go();\n}", "if (y) {\n  stop();\n}"));
		expect(plan.content).toBe("keep   \nif (y) {\n  stop();\n}\nkeep\t\n");
		expect(plan.strategies).toEqual(["trailing-whitespace"]);
	});

	it("unicode look-alikes: curly quotes, dashes, NBSP", () => {
		const content = "x\nconst s = “it’s — fine”;\u00a0// note\ny\n";
		const plan = apply(content, edit(`const s = "it's - fine"; // note`, "const s = 'ok';"));
		expect(plan.content).toBe("x\nconst s = 'ok';\ny\n");
		expect(plan.strategies).toEqual(["unicode"]);
	});

	it("indentation: re-indents new_string by swapping the indentation prefix", () => {
		const content = "class A {\n    run() {\n        if (a) {\n            b();\n        }\n    }\n}\n";
		const plan = apply(content, edit("if (a) {\n    b();\n}", "if (a) {\n    b();\n    c();\n}\nd();"));
		expect(plan.content).toBe(
			"class A {\n    run() {\n        if (a) {\n            b();\n            c();\n        }\n        d();\n    }\n}\n",
		);
		expect(plan.strategies).toEqual(["indentation"]);
	});

	it("indentation: converts spaces in old_string/new_string to the file's tabs", () => {
		const content = "function f() {\n\tif (x) {\n\t\treturn 1;\n\t}\n}\n";
		const plan = apply(content, edit("  if (x) {\n    return 1;\n  }", "  if (x) {\n    log();\n    return 2;\n  }"));
		expect(plan.content).toBe("function f() {\n\tif (x) {\n\t\tlog();\n\t\treturn 2;\n\t}\n}\n");
		expect(plan.strategies).toEqual(["indentation"]);
	});

	it("line-number prefixes copied from read output (in old_string and new_string)", () => {
		const content = "alpha\nbeta\ngamma\n";
		const plan = apply(content, edit("     2\tbeta\n     3\tgamma", "     2\tBETA\n     3\tgamma"));
		expect(plan.content).toBe("alpha\nBETA\ngamma\n");
		expect(plan.strategies).toEqual(["line-numbers"]);
		// new_string without prefixes is taken as it is.
		expect(apply(content, edit("2\tbeta", "B")).content).toBe("alpha\nB\ngamma\n");
	});

	it("line-number prefixes choose the line they name when the text occurs twice", () => {
		const plan = apply("x\nsame\ny\nsame\n", edit("     4\tsame", "other"));
		expect(plan.content).toBe("x\nsame\ny\nother\n");
	});

	it("one exact match wins even if look-alikes exist elsewhere", () => {
		const content = 'say “hi”\nsay "hi"\nsay “hi”\n';
		const plan = apply(content, edit('say "hi"', "bye"));
		expect(plan.content).toBe("say “hi”\nbye\nsay “hi”\n");
		expect(plan.strategies).toEqual(["exact"]);
	});

	it("an ambiguous tolerant match fails and names the rung and the lines", () => {
		expect(() => apply("say “hi”\nx\nsay ”hi“\n", edit('say "hi"', "bye"))).toThrow(
			/matches 2 places \(matched treating curly quotes.*\), at lines 1, 3/s,
		);
	});

	it("several exact matches without replace_all: lists line numbers with previews", () => {
		let message = "";
		try {
			apply("a\n  call(1);\nb\n  call(1);\nc\n", edit("call(1);", "call(2);"));
		} catch (error) {
			message = (error as Error).message;
		}
		expect(message).toContain("matches 2 places, at lines 2, 4");
		expect(message).toContain("line 2:   call(1);");
		expect(message).toContain("replace_all");
	});

	it("replace_all replaces every occurrence, in the space that matched", () => {
		expect(apply("a-a-a", edit("a", "b", true)).content).toBe("b-b-b");
		expect(apply("aaa", edit("aa", "x", true)).content).toBe("xa");
		const crlf = apply("x = 1\r\ny\r\nx = 1\r\n", edit("x = 1\ny", "z\ny", true));
		expect(crlf.content).toBe("z\r\ny\r\nx = 1\r\n");
	});
});

describe("edits[]", () => {
	it("are matched against the original and applied together", () => {
		const plan = apply("one\ntwo\nthree\n", edit("one", "two"), edit("two", "one"));
		expect(plan.content).toBe("two\none\nthree\n");
		expect(plan.replacements.map((replacement) => replacement.editIndex)).toEqual([0, 1]);
	});

	it("must not overlap", () => {
		expect(() => apply("one two three", edit("one two", "1"), edit("two three", "3"))).toThrow(
			/edits\[0\] and edits\[1\] overlap/,
		);
	});

	it("fail as a whole when one misses, naming it", () => {
		expect(() => apply("one\ntwo\n", edit("one", "1"), edit("zzz", "2"))).toThrow(
			/^edits\[1\]: old_string was not found/,
		);
	});
});

describe("errors that say so", () => {
	it("empty old_string", () => {
		expect(() => apply("a\n", edit("", "x"))).toThrow(/old_string is empty.*write/s);
	});

	it("identical old and new", () => {
		expect(() => apply("a\n", edit("a", "a"))).toThrow(/identical.*Put the changed text in new_string/);
	});

	it("a tolerant match whose replacement changes nothing", () => {
		expect(() => apply("a  \nb\n", edit("a\nb", "a  \nb"))).toThrow(/would change nothing/);
	});

	it("looks already applied", () => {
		expect(() => apply("x\nhello world\n", edit("hello there", "hello world"))).toThrow(
			/new_string already occurs once, at line 2: the edit looks already applied/,
		);
	});

	it("near match with whitespace-only difference: line number and text", () => {
		// Inside one line such a difference now applies (the whitespace rung); across lines it is shown.
		expect(apply("a\nif (a  ==  b) {\n}\n", edit("if (a == b) {", "x")).content).toBe("a\nx\n}\n");
		expect(() => apply("a\nif (a  ==\n  b) {\n}\n", edit("if (a == b) {", "x"))).toThrow(
			/near match at line 2 differs only in whitespace.*2\tif \(a {2}==\n {2}3\t {2}b\) \{/s,
		);
	});

	it("near match across blank lines and re-wrapped lines, quoting every line it spans", () => {
		expect(() => apply("x\nalpha();\n\n\nbeta();\n", edit("alpha();\n\nbeta();", "y"))).toThrow(
			/near match at line 2 differs only in whitespace.*\n {2}2\talpha\(\);\n {2}3\t\n {2}4\t\n {2}5\tbeta\(\);\n/s,
		);
		expect(() => apply("a\ncall(first,\n     second);\n", edit("call(first, second);", "y"))).toThrow(
			/near match at line 2 differs only in whitespace/,
		);
	});

	it("near match with a Unicode-only difference beyond the ladder (ellipsis, full-width)", () => {
		expect(() => apply("a\nwait…\nb\n", edit("wait...", "x"))).toThrow(
			/near match at line 2 differs only in whitespace or Unicode/,
		);
	});

	it("points at the closest lines and the word that differs when the lines after the first differ", () => {
		expect(() => apply("start();\nmiddle();\nend();\n", edit("start();\nother();", "x"))).toThrow(
			/closest text is at lines 1-2\. Compared with old_string, it differs: "other" where the file has "middle"/,
		);
	});

	it("points at the first line when nothing else is close", () => {
		expect(() =>
			apply("start();\nmiddle();\nend();\n", edit("start();\nconst unrelated = [1, 2, 3].map(String);", "x")),
		).toThrow(/first line of old_string occurs at line 1/);
	});
});

describe("line endings of inserted text", () => {
	it("CRLF new_string in an LF file becomes LF", () => {
		expect(apply("a\nb\n", edit("a", "x\r\ny")).content).toBe("x\ny\nb\n");
	});

	it("a mixed file keeps every untouched line's ending; inserted lines follow the edited line", () => {
		const plan = apply("a\r\nb\nc\r\nd\n", edit("c", "c1\nc2"));
		expect(plan.content).toBe("a\r\nb\nc1\r\nc2\r\nd\n");
	});

	it("a file without line breaks gets LF", () => {
		expect(apply("abc", edit("b", "1\r\n2")).content).toBe("a1\n2c");
	});
});

describe("CRLF at the edges of a tolerant match", () => {
	it("an old_string starting with a line break takes the CR with it", () => {
		expect(apply("a\r\nb\r\nc\r\n", edit("\nb\n", "\nB\n")).content).toBe("a\r\nB\r\nc\r\n");
	});

	it("an old_string ending before a line break leaves the CRLF alone", () => {
		expect(apply("a\r\nb\r\n", edit("a\nb", "x")).content).toBe("x\r\n");
	});
});

describe("exact matches next to CRLF", () => {
	it("an exact old_string starting with LF right after a CR does not produce CR CR LF", () => {
		expect(apply("a\r\nb\r\n", edit("\nb", "\nB")).content).toBe("a\r\nB\r\n");
	});
});

describe("trailing whitespace at the end of old_string", () => {
	it("is only tolerated where the match ends a line, so a fragment does not widen into prefixes", () => {
		expect(() => apply("line 1000 x\nline 1001 x\n", edit("line 100 ", "L"))).toThrow(/not found/);
		expect(apply("line 100\nline 1000\n", edit("line 100  ", "L")).content).toBe("L\nline 1000\n");
	});
});

describe("bytes outside the replaced spans", () => {
	it("stay identical for every tolerant rung", () => {
		const before = "keep “this”  \r\n\tkeep\u00a0too\t\r\nmixed\n";
		const after = "\r\nlast “line”   \r\n";
		const cases: [string, string][] = [
			["a  \r\nb", "a\nb"], // line endings + trailing whitespace
			["say “x” — y", 'say "x" - y'], // look-alikes
			["    deep();\r\n    deeper();", "deep();\n  deeper();"], // indentation (rung differs: relative indent changed)
		];
		for (const [middle, oldString] of cases) {
			const content = `${before}${middle}${after}`;
			const plan = apply(content, edit(oldString, "NEW"));
			expect(plan.content.startsWith(before), oldString).toBe(true);
			expect(plan.content.endsWith(after), oldString).toBe(true);
			const replaced = plan.content.slice(before.length, plan.content.length - after.length);
			expect(replaced.trim(), oldString).toBe("NEW");
		}
	});
});

describe("edits[] chained as if applied one after another", () => {
	it("names the earlier edit that the missing old_string depends on", () => {
		const content = "alpha\nbeta\ngamma\n";
		expect(() => apply(content, edit("beta", "BETA"), edit("alpha", "ALPHA"), edit("ALPHA\nBETA", "joined"))).toThrow(
			/edits\[2\]: old_string is not in the file as it is now: it only appears once edits\[0\] and edits\[1\] are applied\. All edits are matched against the original file/,
		);
	});

	it("names the one edit when only one is involved", () => {
		expect(() => apply("alpha\nbeta\n", edit("alpha", "gamma"), edit("gamma\nbeta", "delta"))).toThrow(
			/edits\[1\]: old_string is not in the file as it is now: it only appears once edits\[0\] is applied/,
		);
	});

	it("keeps the ordinary miss message when no earlier edit produces the text", () => {
		expect(() => apply("alpha\nbeta\n", edit("alpha", "ALPHA"), edit("delta", "x"))).toThrow(
			/edits\[1\]: old_string was not found/,
		);
	});
});

describe("composed and decomposed accents", () => {
	it("an NFD old_string finds NFC text, and new_string takes the file's form", () => {
		const plan = apply("caf\u00e9 = 1\n", edit("cafe\u0301 = 1", "cafe\u0301 = 2"));
		expect(plan.content).toBe("caf\u00e9 = 2\n");
		expect(plan.strategies).toEqual(["unicode"]);
	});

	it("an NFC old_string finds NFD text", () => {
		const plan = apply("x\nna\u0308ive\n", edit("n\u00e4ive", "plain"));
		expect(plan.content).toBe("x\nplain\n");
	});
});

describe("a final line break after a last line that has none", () => {
	it("matches the last line, and inserts no line break there", () => {
		const plan = apply("one\ntwo\nthree", edit("two\nthree\n", "2\n3\n"));
		expect(plan.content).toBe("one\n2\n3");
		expect(plan.strategies).toEqual(["line-endings"]);
	});

	it("in a CRLF file too", () => {
		const plan = apply("one\r\ntwo\r\nthree", edit("two\nthree\n", "2\nthree\n"));
		expect(plan.content).toBe("one\r\n2\r\nthree");
		expect(plan.strategies).toEqual(["line-endings"]);
	});
});
