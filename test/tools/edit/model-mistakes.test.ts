import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createEditTool, type EditToolInput } from "../../../src/tools/edit.js";
import { useTempDir } from "../../helpers/temp-dir.js";

/** Edits that models clearly intended, and edits that must be refused, each on a real file. */

const tempDir = useTempDir();

async function edit(input: Omit<EditToolInput, "path">, content: string) {
	const path = join(tempDir(), "file.txt");
	await writeFile(path, content);
	const result = await createEditTool(tempDir()).execute("call", { path: "file.txt", ...input }, undefined);
	const text = result.content[0]?.type === "text" ? result.content[0].text : "";
	return { after: await readFile(path, "utf8"), details: result.details, text };
}

async function refusal(input: Omit<EditToolInput, "path">, content: string): Promise<string> {
	const path = join(tempDir(), "file.txt");
	await writeFile(path, content);
	try {
		await createEditTool(tempDir()).execute("call", { path: "file.txt", ...input }, undefined);
	} catch (error) {
		expect(await readFile(path, "utf8"), "a refused edit leaves the file as it was").toBe(content);
		return (error as Error).message;
	}
	throw new Error("expected the edit to be refused");
}

describe("quote straightening", () => {
	it("old and new the same text, matching curly quotes in the file: straightens them", async () => {
		const { after, details } = await edit(
			{ old_string: 'say "hi"', new_string: 'say "hi"' },
			"a\nsay \u201chi\u201d;\nb\n",
		);
		expect(after).toBe('a\nsay "hi";\nb\n');
		expect(details?.strategy).toBe("unicode");
	});

	it("an old_string found exactly and the same new_string is still refused as changing nothing", async () => {
		expect(await refusal({ old_string: "say", new_string: "say" }, "say it\n")).toMatch(
			/identical, so this edit would change nothing/,
		);
	});
});

describe("full-width forms", () => {
	it("ASCII old_string finds full-width punctuation and letters in the file, changing only the match", async () => {
		const content = "keep，this\nconst ＡＢＣ１２３ = f（a，b）;\nkeep（too）\n";
		const { after, details } = await edit({ old_string: "ABC123 = f(a,b)", new_string: "X = g(a)" }, content);
		expect(after).toBe("keep，this\nconst X = g(a);\nkeep（too）\n");
		expect(details?.strategy).toBe("unicode");
	});

	it("full-width old_string finds ASCII in the file", async () => {
		const { after } = await edit({ old_string: "ｆ（ａ，ｂ）；", new_string: "g();" }, "x = f(a,b);\n");
		expect(after).toBe("x = g();\n");
	});
});

describe("whitespace inside lines", () => {
	const file = "class A {\n  function  myFunc( a, b ) {\n    return a;\n  }\n}\n";

	it("applies a one-line old_string that differs in runs of spaces and spaces around brackets", async () => {
		const { after, details, text } = await edit(
			{ old_string: "function myFunc(a, b) {", new_string: "function myFunc(a, b, c) {" },
			file,
		);
		// Only the matched span changed: the indentation before it and every other line are the file's.
		expect(after).toBe("class A {\n  function myFunc(a, b, c) {\n    return a;\n  }\n}\n");
		expect(details?.strategy).toBe("whitespace");
		expect(text).toContain("matched ignoring spaces inside lines");
	});

	it("applies several lines, re-indenting new_string to the file", async () => {
		const { after } = await edit(
			{
				old_string: "function myFunc(a,b) {\n  return a;\n}",
				new_string: "function myFunc(a,b) {\n  const sum = a + b;\n  return sum;\n}",
			},
			file,
		);
		expect(after).toBe("class A {\n  function myFunc(a,b) {\n    const sum = a + b;\n    return sum;\n  }\n}\n");
	});

	it("keeps CRLF line endings and the bytes around the match", async () => {
		const { after } = await edit(
			{ old_string: "call(x , y);\nnext();", new_string: "call(x);\nnext();" },
			"keep \t\r\n  call( x, y );\r\n  next( );\r\nkeep\r\n",
		);
		expect(after).toBe("keep \t\r\n  call(x);\r\n  next();\r\nkeep\r\n");
	});

	it("does not join words, nor widen a word that old_string ended with a space", async () => {
		expect(await refusal({ old_string: "return x", new_string: "y" }, "returnx;\n")).toMatch(/not found/);
		expect(await refusal({ old_string: "line 100 ", new_string: "L" }, "line 1000 x\nline 1001 x\n")).toMatch(
			/not found/,
		);
	});

	it("is unique or says where every place is", async () => {
		expect(await refusal({ old_string: "f(a,b)", new_string: "g()" }, "x\nf( a, b );\ny\nf(a , b);\n")).toMatch(
			/old_string matches 2 places \(matched ignoring spaces inside lines.*at lines 2, 4/s,
		);
	});
});

describe("re-indenting new_string", () => {
	it("leaves new_string alone when it already carries the file's indentation, not old_string's", async () => {
		const content = "class A {\n    run() {\n        go();\n    }\n}\n";
		const { after, details } = await edit(
			{ old_string: "run() {\n    go();\n}", new_string: "    run() {\n        stop();\n    }" },
			content,
		);
		expect(after).toBe("class A {\n    run() {\n        stop();\n    }\n}\n");
		expect(details?.strategy).toBe("indentation");
	});

	it("still re-indents new_string written in old_string's indentation", async () => {
		const content = "class A {\n    run() {\n        go();\n    }\n}\n";
		const { after } = await edit(
			{ old_string: "run() {\n    go();\n}", new_string: "run() {\n    stop();\n}" },
			content,
		);
		expect(after).toBe("class A {\n    run() {\n        stop();\n    }\n}\n");
	});
});

describe("old_string escaped twice", () => {
	const file = 'x\nfunction f() {\n\tconsole.log("hi");\n}\npath = "C:\\dir";\n';

	it('reads \\n, \\t and \\" as the characters when only that finds old_string, and new_string alike', async () => {
		const { after, details, text } = await edit(
			{
				old_string: 'function f() {\\n\\tconsole.log(\\"hi\\");\\n}',
				new_string: 'function f() {\\n\\tconsole.log(\\"bye\\");\\n}',
			},
			file,
		);
		expect(after).toBe('x\nfunction f() {\n\tconsole.log("bye");\n}\npath = "C:\\dir";\n');
		expect(details?.strategy).toBe("escapes");
		expect(text).toContain("escaped twice");
	});

	it("reads \\\\ as one backslash", async () => {
		const { after } = await edit(
			{ old_string: 'path = \\"C:\\\\dir\\";', new_string: 'path = \\"D:\\\\dir\\";' },
			file,
		);
		expect(after).toBe('x\nfunction f() {\n\tconsole.log("hi");\n}\npath = "D:\\dir";\n');
	});

	it("keeps escapes the file really has, and refuses an unescaped text found in several places", async () => {
		const { after, details } = await edit(
			{ old_string: 'print("a\\nb")', new_string: 'print("a\\tb")' },
			'print("a\\nb")\n',
		);
		expect(after).toBe('print("a\\tb")\n');
		expect(details?.strategy).toBe("exact");
		expect(await refusal({ old_string: "a\\nb", new_string: "c" }, "a\nb\na\nb\n")).toMatch(/not found/);
	});
});

describe("omission placeholders in new_string", () => {
	const file = "def f():\n    a = 1\n    b = 2\n    return a + b\n";
	const code = "function f() {\n  a();\n  b();\n}\n<div>\n  <p>x</p>\n</div>\n";

	it("are refused when they replace code, saying what to send instead", async () => {
		const cases: [string, string, string][] = [
			[file, "    a = 1\n    b = 2\n    return a + b", "    a = 10\n    # ... existing code ...\n    return a + b"],
			[code, "  a();\n  b();", "  // ... rest of code ...\n  c();"],
			[code, "  a();\n  b();", "  /* unchanged */\n  c();"],
			[code, "<div>\n  <p>x</p>\n</div>", "<div>\n  <!-- ... -->\n  <p>y</p>\n</div>"],
		];
		for (const [content, oldString, newString] of cases) {
			expect(await refusal({ old_string: oldString, new_string: newString }, content), newString).toMatch(
				/new_string puts the placeholder `.+` where old_string has code\. .*Write the code out in full in new_string, or make old_string cover only the lines that change/s,
			);
		}
	});

	it("are fine when old_string has them too, or when they replace nothing", async () => {
		const withPlaceholder = "function f() {\n  // ... existing code ...\n  a();\n}\n";
		const kept = await edit(
			{ old_string: "  // ... existing code ...\n  a();", new_string: "  // ... existing code ...\n  b();" },
			withPlaceholder,
		);
		expect(kept.after).toBe("function f() {\n  // ... existing code ...\n  b();\n}\n");
		const added = await edit({ old_string: "  b();", new_string: "  b();\n  // ...\n  c();" }, code);
		expect(added.after).toContain("  b();\n  // ...\n  c();\n");
		const comment = await edit({ old_string: "  a();", new_string: "  // compute the rest later\n  c();" }, code);
		expect(comment.after).toContain("  // compute the rest later\n  c();\n");
	});
});

describe("an old_string found in several places", () => {
	it("says how many and where; with many, the first few lines and how many more", async () => {
		const content = Array.from({ length: 30 }, (_, index) => `  call(${index % 2 === 0 ? "a" : "b"});`).join("\n");
		const message = await refusal({ old_string: "call(a);", new_string: "call(c);" }, content);
		expect(message).toMatch(/old_string matches 15 places, at lines 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, …:/);
		expect(message).toContain("  line 1:   call(a);");
		expect(message).toContain("  … and 5 more");
		expect(message).toMatch(/Add surrounding lines to old_string so it matches exactly one place, or set replace_all/);
	});
});

describe("the diff of an edit in a very long line", () => {
	it("shows a window around the change within a 1 MB line, with markers saying what was cut", async () => {
		const content = `first\n${"x".repeat(500_000)}NEEDLE${"y".repeat(500_000)}\nlast\n`;
		const { after, text, details } = await edit({ old_string: "NEEDLE", new_string: "CHANGED" }, content);
		expect(after).toBe(content.replace("NEEDLE", "CHANGED"));
		expect(text).toMatch(
			/\n-\[… 499880 characters not shown …\]x{120}NEEDLEy{120}\[… 499880 characters not shown …\]\n/,
		);
		expect(text).toMatch(
			/\n\+\[… 499880 characters not shown …\]x{120}CHANGEDy{120}\[… 499880 characters not shown …\]\n/,
		);
		expect(text).toContain("\n first\n");
		expect(text).not.toContain("diff cut");
		expect(text.length).toBeLessThan(2000);
		expect(details?.diff.length).toBeLessThan(2000);
		expect(details).toMatchObject({ linesAdded: 1, linesRemoved: 1, firstChangedLine: 2 });
	});

	it("cuts a long unchanged context line and a long added line to their start", async () => {
		const long = "z".repeat(5000);
		const { text } = await edit({ old_string: "b\n", new_string: `b\n${long}\n` }, `${long}\na\nb\nc\n`);
		expect(text).toContain(`\n ${"z".repeat(1000)}[… 4000 characters not shown …]\n`);
		expect(text).toContain(`\n+${"z".repeat(1000)}[… 4000 characters not shown …]\n`);
	});
});

describe("whitespace that changes meaning", () => {
	it("a blank between two equal operators is kept: `a - -b` is not `a --b`", async () => {
		expect(await refusal({ old_string: "x = a - -b;", new_string: "y" }, "x = a --b;\n")).toMatch(/not found/);
		const { after } = await edit({ old_string: "x = a - -b;", new_string: "y" }, "x=a -  -b ;\n");
		expect(after).toBe("y\n");
	});
});
