import { describe } from "vitest";
import { useTempDir } from "../../helpers/temp-dir.js";
import { type PeerCase, peerTests } from "./peer-cases.js";

const editor = "cline sdk core tools/executors/editor.test.ts";
const fileRead = "cline sdk core tools/executors/file-read.test.ts";
const search = "cline sdk core tools/executors/search.test.ts";
const listFiles = "cline vscode services/glob list-files.test.ts";
const numbered = (count: number) => Array.from({ length: count }, (_, index) => `line ${index + 1}`).join("\n");

/** Cline's editor, file-read, search and list-files behaviours, restated as what a user expects of toolbelt. */
const cases: PeerCase[] = [
	{
		name: "edit of a missing file points to write",
		from: editor,
		divergence: "Cline's editor creates the file; toolbelt's edit changes existing files only and says to use write",
		tool: "edit",
		args: { path: "example.txt", old_string: "", new_string: "created with edit" },
		expect: { error: /use write/ },
	},
	{
		name: "a one-line edit shows a diff of that line only",
		from: editor,
		files: { "example.txt": "a\nb\nc" },
		tool: "edit",
		args: { path: "example.txt", old_text: "b", new_text: "B" },
		expect: { contains: ["-b\n+B"], notContains: ["-a", "-c"], files: { "example.txt": "a\nB\nc" } },
	},
	{
		name: "an edit that changes the line count shows the changed region, not the shifted lines after it",
		from: editor,
		files: { "example.txt": "a\nb\nc\nd\ne\nf" },
		tool: "edit",
		args: { path: "example.txt", old_string: "b\nc\nd", new_string: "B" },
		expect: {
			contains: ["-b\n-c\n-d\n+B"],
			notContains: ["-e", "-f", "+e", "+f"],
			files: { "example.txt": "a\nB\ne\nf" },
		},
	},
	{
		name: "an insertion written as a replacement shows only the added line",
		from: editor,
		files: { "example.txt": "a\nb\nc" },
		tool: "edit",
		args: { path: "example.txt", old_string: "a\nb", new_string: "a\nnew\nb" },
		expect: { contains: ["+new"], notContains: ["-a", "-b"], files: { "example.txt": "a\nnew\nb\nc" } },
	},
	{
		name: "a multi-line LF old_string replaces in a CRLF file, which stays CRLF",
		from: editor,
		files: { "example.txt": "a\r\nb\r\nc\r\nd" },
		tool: "edit",
		args: { path: "example.txt", old_string: "b\nc", new_string: "B\nC\nX" },
		expect: { files: { "example.txt": "a\r\nB\r\nC\r\nX\r\nd" } },
	},
	{
		name: "CRLF in new_string does not enter an LF file",
		from: editor,
		files: { "example.txt": "a\nb\nc" },
		tool: "edit",
		args: { path: "example.txt", old_string: "b\nc", new_string: "B\r\nC" },
		expect: { files: { "example.txt": "a\nB\nC" } },
	},
	{
		name: "$-sequences in new_string are written literally",
		from: editor,
		files: { "example.txt": "a\nb\nc" },
		tool: "edit",
		args: { path: "example.txt", old_string: "b", new_string: "cost=$100 pid=$$ match=$& rest=$'" },
		expect: { files: { "example.txt": "a\ncost=$100 pid=$$ match=$& rest=$'\nc" } },
	},
	{
		name: "a long diff stays bounded",
		from: editor,
		files: { "example.txt": `${Array.from({ length: 3000 }, (_, index) => `old-${index}`).join("\n")}\n` },
		tool: "edit",
		args: {
			path: "example.txt",
			old_string: Array.from({ length: 3000 }, (_, index) => `old-${index}`).join("\n"),
			new_string: Array.from({ length: 3000 }, (_, index) => `new-${index}`).join("\n"),
		},
		expect: { contains: ["-old-0", "+new-0"], notContains: ["-old-2999\n"] },
	},
	{
		name: "read numbers the lines",
		from: fileRead,
		files: { "example.txt": "hello absolute path" },
		tool: "read",
		args: { path: "$DIR/example.txt" },
		expect: { contains: [/^\s*1\thello absolute path/] },
	},
	{
		name: "read of a range returns those lines only",
		from: fileRead,
		files: { "example.txt": "alpha\nbeta\ngamma\ndelta" },
		tool: "read",
		args: { path: "example.txt", offset: 2, limit: 2 },
		expect: { contains: ["beta", "gamma"], notContains: ["alpha", "delta\n"] },
	},
	{
		name: "a whole-file read stops at 2,000 lines and says how to read on",
		from: fileRead,
		files: { "example.txt": numbered(2500) },
		tool: "read",
		args: { path: "example.txt" },
		expect: { contains: ["line 2000", "offset=2001"], notContains: ["line 2001"] },
	},
	{
		name: "a 60,000-line file reads its first window quickly, with how to read on",
		from: fileRead,
		files: { "example.txt": numbered(60_000) },
		tool: "read",
		args: { path: "example.txt" },
		expect: { contains: ["line 2000", "offset=2001"], notContains: ["line 2001"] },
	},
	{
		name: "a range beyond the first window reads there",
		from: fileRead,
		files: { "example.txt": numbered(2500) },
		tool: "read",
		args: { path: "example.txt", offset: 2400, limit: 3 },
		expect: { contains: ["line 2400", "line 2402"], notContains: ["line 2399", "line 2403"] },
	},
	{
		name: "an explicit range of 3,000 short lines is returned whole (it fits the byte budget)",
		from: fileRead,
		divergence: "Cline caps every read at 2,000 lines; toolbelt gives an explicit limit when it fits the 50 KB budget",
		files: { "example.txt": numbered(3000) },
		tool: "read",
		args: { path: "example.txt", offset: 1, limit: 3000 },
		expect: { contains: ["line 2000", "line 3000"], notContains: ["offset="] },
	},
	{
		name: "a very long line is cut, saying so",
		from: fileRead,
		files: { "example.txt": `short\n${"x".repeat(100_000)}\nend` },
		tool: "read",
		args: { path: "example.txt" },
		expect: { contains: ["short", "end", /cut|truncat|chars/i], notContains: ["x".repeat(60_000)] },
	},
	{
		name: "a dense file is capped by bytes, saying where to continue",
		from: fileRead,
		files: { "dense.txt": Array.from({ length: 1500 }, (_, index) => `${index} ${"y".repeat(90)}`).join("\n") },
		tool: "read",
		args: { path: "dense.txt" },
		expect: { contains: [/offset=\d+/], notContains: ["1499 y"] },
	},
	{
		name: "a GIF reads as an image",
		from: fileRead,
		files: {
			"pic.gif": Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64"),
		},
		tool: "read",
		args: { path: "pic.gif" },
		expect: { contains: [/image\/gif/i] },
	},
	{
		name: "a path with a narrow no-break space before PM (macOS screenshots) resolves from a plain space",
		from: fileRead,
		files: { "Screenshot 2025-01-01 at 1.02.03\u202fPM.txt": "shot" },
		tool: "read",
		args: { path: "Screenshot 2025-01-01 at 1.02.03 PM.txt" },
		expect: { contains: ["shot"] },
	},
	{
		name: "a grep match on a huge line stays within the budget, keeps the match and says what was cut",
		from: search,
		files: { "large.ts": `needle ${"x".repeat(200_000)} TAIL` },
		tool: "grep",
		args: { pattern: "needle" },
		expect: { contains: ["large.ts:1: needle", /cut|chars/i], notContains: ["x".repeat(1000)] },
	},
	{
		name: "a listing leaves out a folder .gitignore names",
		from: listFiles,
		files: {
			".gitignore": "ignored-dir/\n",
			"visible.ts": "export const x = 1\n",
			"ignored-dir/secret.ts": "secret\n",
			"src/app.ts": "app\n",
		},
		tool: "find",
		args: { pattern: "**/*" },
		expect: { lines: [".gitignore", "src/app.ts", "visible.ts"] },
	},
	{
		name: "a listing leaves out files .gitignore patterns name, at any depth",
		from: listFiles,
		files: {
			".gitignore": "*.log\nsecret.env\n",
			"app.ts": "app\n",
			"debug.log": "debug\n",
			"src/nested.log": "nested\n",
			"src/secret.env": "API_KEY=xxx\n",
			"src/config.ts": "config\n",
		},
		tool: "find",
		args: { pattern: "**/*" },
		expect: { lines: [".gitignore", "app.ts", "src/config.ts"] },
	},
	{
		name: "a .gitignore in a sub folder applies below it",
		from: listFiles,
		files: {
			"src/.gitignore": "generated/\n",
			"src/code.ts": "code\n",
			"src/generated/output.ts": "generated\n",
			"lib/util.ts": "util\n",
		},
		tool: "find",
		args: { pattern: "**/*.ts" },
		expect: { lines: ["lib/util.ts", "src/code.ts"] },
	},
	{
		name: "a .gitignore inside an ignored folder does not bring its files back",
		from: listFiles,
		files: {
			".gitignore": "third-party/\n",
			"app.ts": "app\n",
			"third-party/.gitignore": "!*\n",
			"third-party/repo1/.gitignore": "!file.ts\n",
			"third-party/repo1/file.ts": "x\n",
		},
		tool: "find",
		args: { pattern: "**/*.ts" },
		expect: { lines: ["app.ts"] },
	},
	{
		name: "a listing rooted at a file says it is a file",
		from: listFiles,
		files: { "file.txt": "x" },
		tool: "find",
		args: { pattern: "*", path: "file.txt" },
		expect: { error: /file|folder|directory/i },
	},
	{
		name: "a listing rooted at a folder lists it",
		from: listFiles,
		files: { "dir/a.ts": "a", "dir/b/c.ts": "c" },
		tool: "find",
		args: { pattern: "**/*", path: "dir" },
		expect: { lines: ["a.ts", "b/c.ts"] },
	},
];

describe("peers: Cline", () => {
	const temp = useTempDir();
	peerTests(cases, temp);
});
