// The rows of the first-call bench: what each side's tools are asked, what the raw command does for
// the same answer, and how an answer is known to be right. Shared by the orchestrator (raw commands,
// resets) and the child that runs one side (side.mjs).
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";

const WRITES = 1000;
const READS = 100;
const OFFSET_LINE = 3_000_000;

const freshWrites = (dataDir) => {
	rmSync(join(dataDir, "w"), { recursive: true, force: true });
	mkdirSync(join(dataDir, "w"));
};
const writes = Array.from({ length: WRITES }, (_, index) => [
	"write",
	{ path: `w/f${index}.txt`, content: `file ${index}\n` },
]);
const allOk = (answers) => answers.length > 0 && answers.every((answer) => !answer.isError);

/** Row name → `{ title, raw(dataDir), reset?(dataDir), run(tools), check(answer) }`. */
export const ROWS = {
	"grep-frequent": {
		title: "grep a frequent pattern, default limit, 20k files",
		raw: "rg -n --sort path TODO tree | head -n 100",
		run: (tools) => tools.call("grep", { pattern: "TODO", path: "tree" }),
		// 100 matches; which ones is each tool's choice (toolbelt's are ripgrep's path-sorted first).
		check: (answer) => !answer.isError && (answer.text.match(/d\d{3}\/f\d{3}\.ts:3:/g) ?? []).length >= 100,
	},
	"grep-long-line": {
		title: "grep in a 5 MB one-line file",
		raw: "rg -n needle line5mb.txt | cut -c1-2000",
		run: (tools) => tools.call("grep", { pattern: "needle", path: "line5mb.txt" }),
		check: (answer) => !answer.isError && answer.text.includes("line5mb.txt:1"),
	},
	"bash-seq": {
		title: "`seq 1 100000` through bash",
		raw: "seq 1 100000 | tail -n 2000",
		run: (tools) => tools.call("bash", { command: "seq 1 100000" }),
		check: (answer) => !answer.isError && answer.text.includes("100000"),
	},
	"bash-echo": {
		title: "`echo ok` through bash (fixed cost)",
		// The raw side is bash started from Node (spawnSync), as the goal names it.
		raw: "echo ok",
		run: (tools) => tools.call("bash", { command: "echo ok" }),
		check: (answer) => !answer.isError && answer.text.trim() === "ok",
	},
	"writes-sequence": {
		title: "1,000 writes in sequence",
		raw: `for i in $(seq 0 ${WRITES - 1}); do echo "file $i" > w/f$i.txt; done`,
		reset: freshWrites,
		run: async (tools) => {
			const answers = [];
			for (const [name, args] of writes) answers.push(await tools.call(name, args));
			return answers;
		},
		check: allOk,
	},
	"writes-batch": {
		title: "1,000 writes in one parallel batch",
		raw: `for i in $(seq 0 ${WRITES - 1}); do echo "file $i" > w/f$i.txt; done`,
		reset: freshWrites,
		run: (tools) => tools.batch(writes),
		check: allOk,
	},
	"reads-parallel": {
		title: "100 reads of 256 KB in parallel",
		raw: `ls reads | xargs -P${READS} -I{} head -n 2000 reads/{} > /dev/null`,
		run: (tools) => tools.batch(Array.from({ length: READS }, (_, index) => ["read", { path: `reads/r${index}.txt` }])),
		check: allOk,
	},
	"read-offset": {
		title: "read 100 lines at an offset of a 600 MB file",
		raw: `tail -n +${OFFSET_LINE} big600.txt | head -n 100`,
		run: (tools) => tools.call("read", { path: "big600.txt", offset: OFFSET_LINE, limit: 100 }),
		check: (answer) => !answer.isError && answer.text.includes(`row ${OFFSET_LINE} `),
	},
	"read-first-page": {
		title: "read the first page of a 200 MB file",
		raw: "head -n 2000 big200.txt | head -c 51200",
		run: (tools) => tools.call("read", { path: "big200.txt" }),
		check: (answer) => !answer.isError && answer.text.includes("row 1 "),
	},
	"read-long-line": {
		title: "read a 5 MB one-line file",
		raw: "head -c 51200 line5mb.txt",
		run: (tools) => tools.call("read", { path: "line5mb.txt" }),
		check: (answer) => !answer.isError && answer.text.length > 0,
	},
	"grep-literal": {
		title: "grep a literal over 20k files",
		raw: "rg -F -n needle_literal_7 tree",
		run: (tools) => tools.call("grep", { pattern: "needle_literal_7", path: "tree", literal: true }),
		check: (answer) => !answer.isError && answer.text.includes("needle_literal_7"),
	},
};
