import { copyFile, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { executeToolCalls } from "../../src/engine/execute-tool-calls.js";
import type { ToolCall } from "../../src/engine/types.js";
import { createEditTool } from "../../src/tools/edit.js";
import type { BenchCase, BenchContext } from "../types.js";

const BIG_LINES = 400_000; // ≈ 20 MB
const MEDIUM_LINES = 20_000; // ≈ 1 MB
const SEQUENTIAL_EDITS = 200;
const CONCURRENT_EDITS = 50;
const PAYLOAD = "x".repeat(40);

function numberedLines(prefix: string, count: number, ending = "\n"): string {
	const lines: string[] = new Array(count);
	for (let index = 0; index < count; index++) lines[index] = `${prefix} ${index} ${PAYLOAD}`;
	return lines.join(ending) + ending;
}

/** Writes `name.orig` once (setup is idempotent) so beforeEach can restore `name` between runs. */
async function generate(context: BenchContext, name: string, content: () => string): Promise<void> {
	const pristine = join(context.dataDir, `${name}.orig`);
	const text = content();
	const existing = await stat(pristine).catch(() => undefined);
	if (existing?.size !== Buffer.byteLength(text)) await writeFile(pristine, text);
}

function restore(name: string) {
	return (context: BenchContext) => copyFile(join(context.dataDir, `${name}.orig`), join(context.dataDir, name));
}

/** Runs `work`, timing only it, then runs `check` (untimed). */
async function timed(work: () => Promise<boolean>, check: () => Promise<boolean>) {
	const started = performance.now();
	const workOk = await work();
	const ms = performance.now() - started;
	return { ok: workOk && (await check()), ms };
}

/**
 * Whether `name` now equals its pristine copy with each `[from, to]` replaced once, compared as
 * bytes (a 20 MB expected string per run would dominate the peak memory measured).
 */
async function fileIsPristineWith(context: BenchContext, name: string, replacements: [string, string][]) {
	let expected = await readFile(join(context.dataDir, `${name}.orig`));
	for (const [from, to] of replacements) {
		const index = expected.indexOf(from);
		if (index === -1) return false;
		expected = Buffer.concat([
			expected.subarray(0, index),
			Buffer.from(to),
			expected.subarray(index + Buffer.byteLength(from)),
		]);
	}
	return expected.equals(await readFile(join(context.dataDir, name)));
}

const bigLf = () => numberedLines("line", BIG_LINES);
const bigCrlf = () => numberedLines("line", BIG_LINES, "\r\n");
const medium = () => numberedLines("row", MEDIUM_LINES);
const sequentialTargets = Array.from({ length: SEQUENTIAL_EDITS }, (_, index) => index * 97 + 13);

/** edit against sed -i on the same files: one edit of a large file, many edits of a medium one, a concurrent batch. */
export const cases: BenchCase[] = [
	{
		group: "edit",
		name: "one edit in a 20 MB file",
		goal: "≤ 2× sed -i",
		maxRatio: 2,
		setup: (context) => generate(context, "big.txt", bigLf),
		beforeEach: restore("big.txt"),
		toolbelt: async (context) => {
			const tool = createEditTool(context.dataDir);
			return timed(
				async () => {
					const result = await tool.execute(
						"bench",
						{ path: "big.txt", old_string: "line 200000 ", new_string: "LINE 200000 " },
						undefined,
					);
					return result.details?.replacements === 1 && result.details.firstChangedLine === 200_001;
				},
				() => fileIsPristineWith(context, "big.txt", [["\nline 200000 ", "\nLINE 200000 "]]),
			);
		},
		baseline: "sed -i 's/^line 200000 /LINE 200000 /' big.txt",
	},
	{
		group: "edit",
		name: "one tolerant (LF old_string, CRLF file) edit in a 20 MB file",
		goal: "informational: cost of the ladder, ≤ 4× sed -i",
		maxRatio: 4,
		setup: (context) => generate(context, "big-crlf.txt", bigCrlf),
		beforeEach: restore("big-crlf.txt"),
		toolbelt: async (context) => {
			const tool = createEditTool(context.dataDir);
			return timed(
				async () => {
					const result = await tool.execute(
						"bench",
						{ path: "big-crlf.txt", old_string: `line 200000 ${PAYLOAD}\nline 200001 `, new_string: "JOINED " },
						undefined,
					);
					return result.details?.strategy === "line-endings";
				},
				() => fileIsPristineWith(context, "big-crlf.txt", [[`line 200000 ${PAYLOAD}\r\nline 200001 `, "JOINED "]]),
			);
		},
		baseline: "sed -i '/^line 200000 /{N;s/^line 200000 [x]*\\r\\nline 200001 /JOINED /}' big-crlf.txt",
	},
	{
		group: "edit",
		name: "a failed edit (every word of old_string is in the file, the lines are not) in a 20 MB file",
		goal: "≤ 2× sed scanning it",
		maxRatio: 2,
		setup: (context) => generate(context, "big.txt", bigLf),
		beforeEach: restore("big.txt"),
		toolbelt: async (context) => {
			const tool = createEditTool(context.dataDir);
			let message = "";
			return timed(
				async () => {
					try {
						await tool.execute(
							"bench",
							{ path: "big.txt", old_string: `line 200000 ${PAYLOAD}\nline 200002 ${PAYLOAD}`, new_string: "JOINED" },
							undefined,
						);
					} catch (error) {
						message = (error as Error).message;
					}
					return message.includes("not found");
				},
				() => fileIsPristineWith(context, "big.txt", []),
			);
		},
		baseline: "sed -n '/^line 200000 x*$/{N;/\\nline 200002 /p}' big.txt",
	},
	{
		group: "edit",
		name: `${SEQUENTIAL_EDITS} sequential edits of a 1 MB file`,
		goal: `faster than ${SEQUENTIAL_EDITS} sed -i runs`,
		maxRatio: 1,
		setup: (context) => generate(context, "medium.txt", medium),
		beforeEach: restore("medium.txt"),
		toolbelt: async (context) => {
			const tool = createEditTool(context.dataDir);
			return timed(
				async () => {
					for (const line of sequentialTargets) {
						await tool.execute(
							"bench",
							{ path: "medium.txt", old_string: `row ${line} `, new_string: `ROW ${line} ` },
							undefined,
						);
					}
					return true;
				},
				() =>
					fileIsPristineWith(
						context,
						"medium.txt",
						sequentialTargets.map((line) => [`\nrow ${line} `, `\nROW ${line} `]),
					),
			);
		},
		baseline: `for i in ${sequentialTargets.join(" ")}; do sed -i "s/^row $i /ROW $i /" medium.txt; done`,
	},
	{
		group: "edit",
		name: `${CONCURRENT_EDITS} concurrent edits of different lines of one file, one parallel batch`,
		goal: `all ${CONCURRENT_EDITS} land`,
		setup: (context) => generate(context, "medium.txt", medium),
		beforeEach: restore("medium.txt"),
		toolbelt: async (context) => {
			const targets = Array.from({ length: CONCURRENT_EDITS }, (_, index) => index * 300 + 7);
			const toolCalls: ToolCall[] = targets.map((line, index) => ({
				type: "toolCall",
				id: `call-${index}`,
				name: "edit",
				arguments: { path: "medium.txt", old_string: `row ${line} `, new_string: `ROW ${line} ` },
			}));
			const started = performance.now();
			const { messages } = await executeToolCalls({
				tools: [createEditTool(context.dataDir)],
				toolCalls,
				toolExecution: "parallel",
			});
			const ms = performance.now() - started;
			const succeeded = messages.filter((message) => !message.isError).length;
			const content = await readFile(join(context.dataDir, "medium.txt"), "utf8");
			const landed = targets.filter((line) => content.includes(`\nROW ${line} `)).length;
			const exact = await fileIsPristineWith(
				context,
				"medium.txt",
				targets.map((line) => [`\nrow ${line} `, `\nROW ${line} `]),
			);
			return {
				ok: succeeded === CONCURRENT_EDITS && landed === CONCURRENT_EDITS && exact,
				ms,
				note: `${landed}/${CONCURRENT_EDITS} edits landed, ${succeeded} results ok`,
			};
		},
	},
];
