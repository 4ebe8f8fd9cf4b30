import { execFileSync } from "node:child_process";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createApplyPatchTool } from "../../src/tools/index.js";
import { requiredInCi } from "../helpers/prerequisites.js";
import { useTempDir } from "../helpers/temp-dir.js";

const dir = useTempDir();

function patchOf(...lines: string[]): string {
	return ["*** Begin Patch", ...lines, "*** End Patch"].join("\n");
}

async function apply(patch: string) {
	return createApplyPatchTool(dir()).execute("call", { patch }, undefined);
}

async function put(name: string, content: string | Buffer): Promise<void> {
	await mkdir(join(dir(), name, ".."), { recursive: true });
	await writeFile(join(dir(), name), content);
}

const text = (name: string) => readFile(join(dir(), name), "utf8");

describe("apply_patch: the documented format", () => {
	it("adds a file, creating its parent directories", async () => {
		const result = await apply(patchOf("*** Add File: src/deep/new.py", "+print('hi')", "+x = 1"));
		expect(await text("src/deep/new.py")).toBe("print('hi')\nx = 1\n");
		expect(result.details?.files[0]).toMatchObject({ action: "added", path: "src/deep/new.py", linesAdded: 2 });
	});

	it("updates a file with several hunks, in order, and describes each change", async () => {
		const lines = Array.from({ length: 30 }, (_, index) => `line ${index + 1}`);
		await put("a.txt", `${lines.join("\n")}\n`);
		const result = await apply(
			patchOf(
				"*** Update File: a.txt",
				"@@",
				" line 2",
				"-line 3",
				"+LINE 3",
				" line 4",
				"@@",
				" line 20",
				"-line 21",
				"+LINE 21",
				" line 22",
			),
		);
		const after = await text("a.txt");
		expect(after).toContain("line 2\nLINE 3\nline 4");
		expect(after).toContain("line 20\nLINE 21\nline 22");
		expect(result.content[0]).toMatchObject({ type: "text" });
		const shown = (result.content[0] as { text: string }).text;
		expect(shown).toContain("Updated a.txt (+2 -2)");
		expect(shown).toContain("+LINE 21");
	});

	it("finds the place after an @@ line such as `def f():`", async () => {
		await put("m.py", "def g():\n    return 1\n\ndef f():\n    return 1\n");
		await apply(patchOf("*** Update File: m.py", "@@ def f():", "-    return 1", "+    return 2"));
		expect(await text("m.py")).toBe("def g():\n    return 1\n\ndef f():\n    return 2\n");
	});

	it("moves a file with changes, and deletes another", async () => {
		await put("old.txt", "a\nb\n");
		await put("gone.txt", "bye\n");
		const result = await apply(
			patchOf(
				"*** Update File: old.txt",
				"*** Move to: moved/new.txt",
				"@@",
				" a",
				"-b",
				"+c",
				"*** Delete File: gone.txt",
			),
		);
		expect(await text("moved/new.txt")).toBe("a\nc\n");
		await expect(stat(join(dir(), "old.txt"))).rejects.toThrow();
		await expect(stat(join(dir(), "gone.txt"))).rejects.toThrow();
		expect(result.details?.files.map((file) => file.action)).toEqual(["moved", "deleted"]);
	});

	it("anchors a hunk marked *** End of File at the end", async () => {
		await put("e.txt", "x\nend\nx\nend\n");
		await apply(patchOf("*** Update File: e.txt", "@@", " x", "-end", "+END", "*** End of File"));
		expect(await text("e.txt")).toBe("x\nend\nx\nEND\n");
	});
});

describe("apply_patch: shapes models get slightly wrong", () => {
	it.each([
		["a missing *** End Patch", "*** Begin Patch\n*** Update File: f.txt\n@@\n-one\n+two\n"],
		[
			"a heredoc around it",
			"apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: f.txt\n@@\n-one\n+two\n*** End Patch\nEOF\n",
		],
		["a code fence around it", "```diff\n*** Begin Patch\n*** Update File: f.txt\n@@\n-one\n+two\n*** End Patch\n```"],
		["a unified-diff @@ header", "*** Begin Patch\n*** Update File: f.txt\n@@ -1,1 +1,1 @@\n-one\n+two\n*** End Patch"],
		["CRLF line breaks", "*** Begin Patch\r\n*** Update File: f.txt\r\n@@\r\n-one\r\n+two\r\n*** End Patch\r\n"],
		["no @@ before the first hunk", "*** Begin Patch\n*** Update File: f.txt\n-one\n+two\n*** End Patch"],
	])("accepts %s", async (_name, patch) => {
		await put("f.txt", "zero\none\nthree\n");
		await apply(patch);
		expect(await text("f.txt")).toBe("zero\ntwo\nthree\n");
	});

	it("refuses text that is no patch, saying what the format is", async () => {
		await expect(apply("just some words")).rejects.toThrow(/Begin Patch/);
	});
});

describe("apply_patch: bytes kept and tolerant matching", () => {
	it("keeps a BOM and CRLF line endings", async () => {
		await put("w.txt", Buffer.from("\ufeffone\r\ntwo\r\nthree\r\n", "utf8"));
		await apply(patchOf("*** Update File: w.txt", "@@", " one", "-two", "+TWO", "+2b"));
		expect(await readFile(join(dir(), "w.txt"))).toEqual(Buffer.from("\ufeffone\r\nTWO\r\n2b\r\nthree\r\n", "utf8"));
	});

	it("matches context with trailing whitespace and different indentation, as edit does", async () => {
		await put("t.ts", "function f() {\n\tconst a = 1;   \n\treturn a;\n}\n");
		const result = await apply(
			patchOf("*** Update File: t.ts", "@@", "   const a = 1;", "-  return a;", "+  return a + 1;"),
		);
		expect(await text("t.ts")).toBe("function f() {\n\tconst a = 1;   \n\treturn a + 1;\n}\n");
		expect(result.details?.files[0]?.strategies?.[0]).not.toBe("exact");
	});

	it("reports a failed hunk with the file, the hunk and the nearest match, and writes nothing", async () => {
		await put("ok.txt", "a\nb\n");
		await put("bad.txt", "alpha\nbeta\ngamma\n");
		const error = await apply(
			patchOf(
				"*** Update File: ok.txt",
				"@@",
				"-a",
				"+A",
				"*** Update File: bad.txt",
				"@@",
				" alpha",
				"-betta",
				"+BETA",
				" gamma",
			),
		).catch((thrown: Error) => thrown);
		expect(String(error)).toMatch(/Hunk 1 of bad\.txt does not apply/);
		expect(String(error)).toMatch(/at lines? 1\b/);
		expect(String(error)).toContain('Compared with the hunk\'s lines, it differs: "betta" where the file has "beta"');
		expect(await text("ok.txt")).toBe("a\nb\n");
	});

	it("refuses hunks given out of file order, saying so", async () => {
		await put("o.txt", "one\ntwo\nthree\nfour\n");
		await expect(apply(patchOf("*** Update File: o.txt", "@@", "-four", "+4", "@@", "-one", "+1"))).rejects.toThrow(
			/file order/,
		);
	});

	it("refuses a file named twice", async () => {
		await put("d.txt", "x\n");
		await expect(apply(patchOf("*** Update File: d.txt", "@@", "-x", "+y", "*** Delete File: d.txt"))).rejects.toThrow(
			/more than once/,
		);
	});
});

function canMakeImmutable(path: string): boolean {
	try {
		execFileSync("chattr", ["+i", path], { stdio: "ignore" });
		return true;
	} catch {
		return false;
	}
}

describe("apply_patch: all or nothing", () => {
	it("restores every file when the third of four cannot be written", async () => {
		const names = ["one/f.txt", "two/f.txt", "three/f.txt", "four/f.txt"];
		for (const name of names) await put(name, `old ${name}\n`);
		const before = await Promise.all(names.map((name) => readFile(join(dir(), name))));
		// Root may write to a chmod'ed file; an immutable one refuses even root (and, unlike an
		// immutable folder, also refuses write's in-place fallback).
		const locked = join(dir(), "three", "f.txt");
		if (requiredInCi("chattr +i (an immutable file)", canMakeImmutable(locked) ? undefined : "chattr +i failed"))
			return;
		try {
			const patch = patchOf(
				...names.flatMap((name) => [`*** Update File: ${name}`, "@@", `-old ${name}`, `+new ${name}`]),
			);
			const error = await apply(patch).catch((thrown: Error) => thrown);
			expect(String(error)).toMatch(/three\/f\.txt/);
			expect(String(error)).toMatch(/rolled back/);
		} finally {
			execFileSync("chattr", ["-i", locked]);
		}
		const after = await Promise.all(names.map((name) => readFile(join(dir(), name))));
		expect(after).toEqual(before);
	});

	it("lands two parallel patches on one file (the mutation queue)", async () => {
		await put("shared.txt", "a\nb\nc\nd\n");
		const tool = createApplyPatchTool(dir());
		await Promise.all([
			tool.execute("1", { patch: patchOf("*** Update File: shared.txt", "@@", "-a", "+A") }, undefined),
			tool.execute("2", { patch: patchOf("*** Update File: shared.txt", "@@", "-d", "+D") }, undefined),
		]);
		expect(await text("shared.txt")).toBe("A\nb\nc\nD\n");
	});
});
