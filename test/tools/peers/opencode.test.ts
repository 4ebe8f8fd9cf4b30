import { describe } from "vitest";
import { useTempDir } from "../../helpers/temp-dir.js";
import { type PeerCase, peerTests } from "./peer-cases.js";

const edit = "opencode test/tool/edit.test.ts";
const read = "opencode test/tool/read.test.ts";
const grep = "opencode test/tool/grep.test.ts";
const bom = "\uFEFF";
const crlf = (text: string) => text.replaceAll("\r\n", "\n").replaceAll("\n", "\r\n");
const lf = (text: string) => text.replaceAll("\r\n", "\n");
const block = "alpha\nbeta\ngamma";
const updated = "alpha\nbeta-updated\ngamma";
const lines = (count: number, from = 0) =>
	Array.from({ length: count }, (_, index) => `line${index + from}`).join("\n");

/** One line-ending combination: the file's, old_string's and new_string's, and the file after. */
function lineEndingCase(name: string, file: string, oldString: string, newString: string, after: string): PeerCase {
	return {
		name,
		from: edit,
		files: { "test.txt": file },
		tool: "edit",
		args: { path: "test.txt", old_string: oldString, new_string: newString },
		expect: { files: { "test.txt": after } },
	};
}

/** opencode's edit, read and grep behaviours, restated as what a user expects of toolbelt. */
const cases: PeerCase[] = [
	{
		name: "edit with an empty old_string on a missing file points to write",
		from: edit,
		divergence: "opencode's edit creates the file; toolbelt's edit changes existing files only and says to use write",
		tool: "edit",
		args: { path: "nested/dir/newfile.txt", old_string: "", new_string: "new content" },
		expect: { error: /use write/ },
	},
	{
		name: "write creates a file in missing folders",
		from: edit,
		tool: "write",
		args: { path: "nested/dir/file.txt", content: "nested file" },
		expect: { files: { "nested/dir/file.txt": "nested file" } },
	},
	{
		name: "write over a file with a BOM keeps the BOM",
		from: edit,
		files: { "existing.cs": `${bom}using System;\n` },
		tool: "write",
		args: { path: "existing.cs", content: "using Up;\n" },
		expect: { files: { "existing.cs": `${bom}using Up;\n` } },
	},
	{
		name: "old_string equal to new_string, found in the file, is refused as changing nothing",
		from: edit,
		files: { "file.txt": "same content" },
		tool: "edit",
		args: { path: "file.txt", old_string: "same", new_string: "same" },
		expect: { error: /identical|nothing/i, files: { "file.txt": "same content" } },
	},
	{
		name: "edit replaces text in an existing file",
		from: edit,
		files: { "existing.txt": "old content here" },
		tool: "edit",
		args: { path: "existing.txt", old_string: "old content", new_string: "new content" },
		expect: { files: { "existing.txt": "new content here" } },
	},
	{
		name: "edit takes the common argument aliases (file_path, oldString, newString)",
		from: edit,
		files: { "alias.txt": "old content" },
		tool: "edit",
		args: { file_path: "alias.txt", oldString: "old", newString: "new" },
		expect: { files: { "alias.txt": "new content" } },
	},
	{
		name: "the first line of a BOM file is edited, the BOM kept and not shown in the diff",
		from: edit,
		files: { "existing.cs": `${bom}using System;\nclass Test {}\n` },
		tool: "edit",
		args: { path: "existing.cs", old_string: "using System;", new_string: "using Up;" },
		expect: {
			contains: ["-using System;", "+using Up;"],
			notContains: [bom],
			files: { "existing.cs": `${bom}using Up;\nclass Test {}\n` },
		},
	},
	{
		name: "edit of a missing file says it was not found",
		from: edit,
		tool: "edit",
		args: { path: "nonexistent.txt", old_string: "old", new_string: "new" },
		expect: { error: /not found/i },
	},
	{
		name: "old_string equal to new_string (and not in the file) is refused, the file unchanged",
		from: edit,
		divergence: "opencode says the strings are identical; toolbelt looks for old_string first and says it is not there",
		files: { "file.txt": "content" },
		tool: "edit",
		args: { path: "file.txt", old_string: "same", new_string: "same" },
		expect: { error: /not found|identical/i, files: { "file.txt": "content" } },
	},
	{
		name: "old_string not in the file is an error",
		from: edit,
		files: { "file.txt": "actual content" },
		tool: "edit",
		args: { path: "file.txt", old_string: "not in file", new_string: "replacement" },
		expect: { error: /not found/i, files: { "file.txt": "actual content" } },
	},
	{
		name: "replace_all replaces every occurrence",
		from: edit,
		files: { "file.txt": "foo bar foo baz foo" },
		tool: "edit",
		args: { path: "file.txt", old_string: "foo", new_string: "qux", replace_all: true },
		expect: { files: { "file.txt": "qux bar qux baz qux" } },
	},
	{
		name: "a one-line old_string becomes several lines",
		from: edit,
		files: { "file.txt": "line1\nline2\nline3" },
		tool: "edit",
		args: { path: "file.txt", old_string: "line2", new_string: "new line 2\nextra line" },
		expect: { files: { "file.txt": "line1\nnew line 2\nextra line\nline3" } },
	},
	{
		name: "a one-word edit in a CRLF file keeps CRLF",
		from: edit,
		files: { "file.txt": "line1\r\nold\r\nline3" },
		tool: "edit",
		args: { path: "file.txt", old_string: "old", new_string: "new" },
		expect: { files: { "file.txt": "line1\r\nnew\r\nline3" } },
	},
	{
		name: "empty old_string and new_string on an existing file is refused",
		from: edit,
		files: { "file.txt": "content" },
		tool: "edit",
		args: { path: "file.txt", old_string: "", new_string: "" },
		expect: { error: /identical|nothing|empty|write/i, files: { "file.txt": "content" } },
	},
	{
		name: "edit of a folder says it is a folder",
		from: edit,
		files: { adir: { dir: true } },
		tool: "edit",
		args: { path: "adir", old_string: "old", new_string: "new" },
		expect: { error: /directory|folder/i },
	},
	{
		name: "an edit reports the lines it added",
		from: edit,
		files: { "file.txt": "line1\nline2\nline3" },
		tool: "edit",
		args: { path: "file.txt", old_string: "line2", new_string: "new line a\nnew line b" },
		expect: { contains: ["+new line a", "+new line b", "-line2"] },
	},
	lineEndingCase("LF file, LF strings: stays LF", `${block}\n`, block, updated, `${updated}\n`),
	lineEndingCase(
		"CRLF file, CRLF strings: stays CRLF",
		crlf(`${block}\n`),
		crlf(block),
		crlf(updated),
		crlf(`${updated}\n`),
	),
	lineEndingCase("LF file, CRLF strings: stays LF", `${block}\n`, crlf(block), crlf(updated), `${updated}\n`),
	lineEndingCase("CRLF file, LF strings: stays CRLF", crlf(`${block}\n`), block, updated, crlf(`${updated}\n`)),
	lineEndingCase("LF file, CRLF new_string: stays LF", `${block}\n`, block, crlf(updated), `${updated}\n`),
	lineEndingCase(
		"CRLF file, LF new_string: stays CRLF",
		crlf(`${block}\n`),
		crlf(block),
		updated,
		crlf(`${updated}\n`),
	),
	lineEndingCase(
		"LF file, strings of mixed endings: stays LF",
		`${block}\n`,
		"alpha\nbeta\r\ngamma",
		"alpha\r\nbeta\nomega",
		"alpha\nbeta\nomega\n",
	),
	lineEndingCase(
		"CRLF file, strings of mixed endings: stays CRLF",
		crlf(`${block}\n`),
		"alpha\r\nbeta\ngamma",
		"alpha\nbeta\r\nomega",
		crlf("alpha\nbeta\nomega\n"),
	),
	{
		name: "replace_all of a multi-line block in an LF file stays LF",
		from: edit,
		files: { "test.txt": "alpha\nbeta\nalpha\nbeta\n" },
		tool: "edit",
		args: { path: "test.txt", old_string: "alpha\nbeta", new_string: "alpha\nbeta-updated", replace_all: true },
		expect: { files: { "test.txt": lf("alpha\nbeta-updated\nalpha\nbeta-updated\n") } },
	},
	{
		name: "replace_all of a multi-line block in a CRLF file stays CRLF",
		from: edit,
		files: { "test.txt": crlf("alpha\nbeta\nalpha\nbeta\n") },
		tool: "edit",
		args: {
			path: "test.txt",
			old_string: crlf("alpha\nbeta"),
			new_string: crlf("alpha\nbeta-updated"),
			replace_all: true,
		},
		expect: { files: { "test.txt": crlf("alpha\nbeta-updated\nalpha\nbeta-updated\n") } },
	},
	{
		name: "read of an absolute path inside the project",
		from: read,
		files: { "test.txt": "hello world" },
		tool: "read",
		args: { path: "$DIR/test.txt" },
		expect: { contains: ["hello world"] },
	},
	{
		name: "read of a file in a sub folder",
		from: read,
		files: { "subdir/test.txt": "nested content" },
		tool: "read",
		args: { path: "subdir/test.txt" },
		expect: { contains: ["nested content"] },
	},
	{
		name: "a 60 KB file is capped by bytes with an offset to continue",
		from: read,
		files: { "large.json": `${'{"key": "value", "list": [1, 2, 3]},\n'.repeat(1700)}` },
		tool: "read",
		args: { path: "large.json" },
		expect: { contains: [/offset=\d+/] },
	},
	{
		name: "a 4 MB file is capped at the byte budget",
		from: read,
		files: { "huge.txt": `${"x".repeat(80)}\n`.repeat(50_000) },
		tool: "read",
		args: { path: "huge.txt" },
		expect: { contains: [/offset=\d+/], notContains: ["50000\t"] },
	},
	{
		name: "limit 10 shows ten lines and says where to continue",
		from: read,
		files: { "many-lines.txt": lines(100) },
		tool: "read",
		args: { path: "many-lines.txt", limit: 10 },
		expect: { contains: ["line0", "line9", "offset=11"], notContains: ["line10"] },
	},
	{
		name: "offset and limit give that window, numbered by file line",
		from: read,
		files: { "offset.txt": lines(20, 1) },
		tool: "read",
		args: { path: "offset.txt", offset: 10, limit: 5 },
		expect: { contains: [/10\tline10/, /14\tline14/], notContains: ["line9\n", "line15"] },
	},
	{
		name: "an offset past the end is an error naming the line count",
		from: read,
		files: { "short.txt": lines(3, 1) },
		tool: "read",
		args: { path: "short.txt", offset: 4, limit: 5 },
		expect: { error: /4.*3 lines/ },
	},
	{
		name: "an empty file reads at the default offset",
		from: read,
		files: { "empty.txt": "" },
		tool: "read",
		args: { path: "empty.txt" },
		expect: { contains: [/empty|0 lines/i] },
	},
	{
		name: "an offset past the start of an empty file is an error",
		from: read,
		files: { "empty.txt": "" },
		tool: "read",
		args: { path: "empty.txt", offset: 2 },
		expect: { error: /empty|0 lines|beyond/i },
	},
	{
		name: "grep with no match says so",
		from: grep,
		files: { "test.txt": "hello world" },
		tool: "grep",
		args: { pattern: "xyznonexistentpatternxyz123" },
		expect: { text: "No matches found" },
	},
	{
		name: "grep lists matches of every line of a file",
		from: grep,
		files: { "test.txt": "line1\nline2\nline3" },
		tool: "grep",
		args: { pattern: "line" },
		expect: { lines: ["test.txt:1: line1", "test.txt:2: line2", "test.txt:3: line3"] },
	},
	{
		name: "grep of a CRLF file shows its lines without the CR",
		from: grep,
		files: { "test.txt": "line1\r\nline2\r\nline3" },
		tool: "grep",
		args: { pattern: "line\\d$" },
		expect: { lines: ["test.txt:1: line1", "test.txt:2: line2", "test.txt:3: line3"] },
	},
	{
		name: "grep with include over a tree of sources finds the exports",
		from: grep,
		files: { "src/tool/a.ts": "export const a = 1;\n", "src/tool/b.md": "export docs\n" },
		tool: "grep",
		args: { pattern: "export", path: "src/tool", include: "*.ts" },
		expect: { lines: ["a.ts:1: export const a = 1;"] },
	},
];

describe("peers: opencode", () => {
	const temp = useTempDir();
	peerTests(cases, temp);
});
