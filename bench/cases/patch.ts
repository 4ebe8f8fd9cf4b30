import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createCheckpoints } from "../../src/checkpoints/index.js";
import { executeToolCalls } from "../../src/engine/execute-tool-calls.js";
import type { ToolCall } from "../../src/engine/types.js";
import { createApplyPatchTool, createEditTool, createWriteTool } from "../../src/tools/index.js";
import type { BenchCase, BenchContext } from "../types.js";

const FILES = 10;
const HUNKS_PER_FILE = 5;
const LINES_PER_FILE = 2_000;

function original(file: number): string {
	const lines: string[] = [];
	for (let line = 0; line < LINES_PER_FILE; line++) lines.push(`file ${file} line ${line} ${"x".repeat(30)}`);
	return `${lines.join("\n")}\n`;
}

/** The lines each hunk changes: evenly spread over the file. */
function changedLines(): number[] {
	return Array.from({ length: HUNKS_PER_FILE }, (_, hunk) =>
		Math.floor(((hunk + 0.5) * LINES_PER_FILE) / HUNKS_PER_FILE),
	);
}

async function resetFiles(context: BenchContext): Promise<void> {
	const folder = join(context.dataDir, "work");
	await mkdir(folder, { recursive: true });
	await Promise.all(
		Array.from({ length: FILES }, (_, file) => writeFile(join(folder, `f${file}.txt`), original(file))),
	);
}

const lineOf = (file: number, line: number) => `file ${file} line ${line} ${"x".repeat(30)}`;

function thePatch(): string {
	const sections: string[] = ["*** Begin Patch"];
	for (let file = 0; file < FILES; file++) {
		sections.push(`*** Update File: f${file}.txt`);
		for (const line of changedLines()) {
			sections.push(
				"@@",
				` ${lineOf(file, line - 1)}`,
				`-${lineOf(file, line)}`,
				`+changed ${line}`,
				` ${lineOf(file, line + 1)}`,
			);
		}
	}
	sections.push("*** End Patch");
	return sections.join("\n");
}

async function allChanged(context: BenchContext): Promise<boolean> {
	for (let file = 0; file < FILES; file++) {
		const text = await readFile(join(context.dataDir, "work", `f${file}.txt`), "utf8");
		if (!changedLines().every((line) => text.includes(`\nchanged ${line}\n`))) return false;
	}
	return true;
}

/** Runs `work` timed, then `check` untimed. */
async function timed(work: () => Promise<unknown>, check: () => Promise<boolean>) {
	const started = performance.now();
	await work();
	const ms = performance.now() - started;
	return { ok: await check(), ms };
}

export const cases: BenchCase[] = [
	{
		group: "patch",
		name: "apply_patch: 50 hunks over 10 files, one call",
		goal: "report (vs 50 edit calls below)",
		beforeEach: resetFiles,
		async toolbelt(context) {
			const tool = createApplyPatchTool(join(context.dataDir, "work"));
			const toolCalls: ToolCall[] = [
				{ type: "toolCall", id: "p", name: "apply_patch", arguments: { patch: thePatch() } },
			];
			return timed(
				() => executeToolCalls({ tools: [tool], toolCalls }),
				() => allChanged(context),
			);
		},
	},
	{
		group: "patch",
		name: "edit: the same 50 changes as 50 sequential calls",
		goal: "report",
		beforeEach: resetFiles,
		async toolbelt(context) {
			const tool = createEditTool(join(context.dataDir, "work"));
			const toolCalls: ToolCall[] = [];
			for (let file = 0; file < FILES; file++) {
				for (const line of changedLines()) {
					toolCalls.push({
						type: "toolCall",
						id: `e${file}-${line}`,
						name: "edit",
						arguments: { path: `f${file}.txt`, old_string: `${lineOf(file, line)}\n`, new_string: `changed ${line}\n` },
					});
				}
			}
			return timed(
				() => executeToolCalls({ tools: [tool], toolCalls }),
				() => allChanged(context),
			);
		},
	},
	{
		group: "patch",
		name: "undo of 200 calls (200 writes over 20 files, one turn)",
		goal: "report",
		beforeEach: resetFiles,
		async toolbelt(context) {
			const folder = join(context.dataDir, "work");
			const stateDir = join(context.dataDir, `state-${process.pid}-${Date.now()}`);
			const checkpoints = await createCheckpoints({ workspace: folder, stateDir });
			const tool = createWriteTool(folder);
			const toolCalls: ToolCall[] = Array.from({ length: 200 }, (_, index) => ({
				type: "toolCall",
				id: `w${index}`,
				name: "write",
				arguments: { path: `u${index % 20}.txt`, content: `version ${index}\n${"y".repeat(2000)}\n` },
			}));
			await executeToolCalls({ tools: [tool], toolCalls, ...checkpoints.hooks });
			const recorded = (await checkpoints.list()).length;
			const result = await timed(
				() => checkpoints.restore({ turns: 1 }),
				async () => {
					const names = Array.from({ length: 20 }, (_, index) => join(folder, `u${index}.txt`));
					const gone = await Promise.all(
						names.map((name) =>
							readFile(name).then(
								() => false,
								() => true,
							),
						),
					);
					return recorded === 200 && gone.every(Boolean);
				},
			);
			await rm(stateDir, { recursive: true, force: true });
			return { ...result, note: "200 checkpoints recorded, then one restore timed" };
		},
	},
];
