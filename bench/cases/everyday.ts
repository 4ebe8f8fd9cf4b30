import { mkdir, readdir, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { executeToolCalls } from "../../src/engine/execute-tool-calls.js";
import type { AnyAgentTool, ToolCall, ToolHooks, ToolResultMessage } from "../../src/engine/types.js";
import { createSafetyLayer } from "../../src/safety/index.js";
import { createGrepTool } from "../../src/tools/grep.js";
import { createReadTool } from "../../src/tools/read.js";
import { createWriteTool } from "../../src/tools/write.js";
import type { BenchCase, BenchContext, BenchOutcome } from "../types.js";

// Issue 18's everyday calls, each through `executeToolCalls` (validation, scheduling, hooks
// plumbing: what a model's call costs), against the raw command doing the same work.

const { rgPath } = (await import("@vscode/ripgrep")) as { rgPath: string };
const rg = `'${rgPath.replace(/'/g, "'\\''")}'`;

const MINIFIED = "minified.js";
const MINIFIED_BYTES = 5 * 2 ** 20;
const LITERAL = "LITERAL_NEEDLE_42";
const WRITES = 1000;
const WRITE_DIR = "writes";
const READS = 100;
const READ_DIR = "reads";
const READ_BYTES = 256 * 1024;

async function sizeOf(path: string): Promise<number | undefined> {
	try {
		return (await stat(path)).size;
	} catch {
		return undefined;
	}
}

/** 5 MB of one line of JavaScript-looking text with the literal once, two thirds in. */
async function makeMinified({ dataDir }: BenchContext): Promise<void> {
	const path = join(dataDir, MINIFIED);
	if ((await sizeOf(path)) === MINIFIED_BYTES) return;
	const unit = "function a(b,c){return b+c};var d=[1,2,3].map(function(e){return e*2});";
	let text = unit.repeat(Math.ceil(MINIFIED_BYTES / unit.length)).slice(0, MINIFIED_BYTES - LITERAL.length);
	const at = Math.floor(text.length * (2 / 3));
	text = `${text.slice(0, at)}${LITERAL}${text.slice(at)}`;
	await writeFile(path, text);
}

/** 100 files of 256 KB of 80-column lines. */
async function makeReadFiles({ dataDir }: BenchContext): Promise<void> {
	const folder = join(dataDir, READ_DIR);
	await mkdir(folder, { recursive: true });
	const line = `${"x".repeat(79)}\n`;
	const text = line.repeat(READ_BYTES / line.length + 1).slice(0, READ_BYTES);
	for (let index = 0; index < READS; index++) {
		const path = join(folder, `file-${index}.txt`);
		if ((await sizeOf(path)) !== READ_BYTES) await writeFile(path, text);
	}
}

async function freshWriteDir({ dataDir }: BenchContext): Promise<void> {
	await rm(join(dataDir, WRITE_DIR), { recursive: true, force: true });
	await mkdir(join(dataDir, WRITE_DIR), { recursive: true });
}

function writeCall(index: number): ToolCall {
	const path = `${WRITE_DIR}/file-${index}.txt`;
	return { type: "toolCall", id: `w${index}`, name: "write", arguments: { path, content: `content ${index}\n` } };
}

function readCall(index: number): ToolCall {
	return { type: "toolCall", id: `r${index}`, name: "read", arguments: { path: `${READ_DIR}/file-${index}.txt` } };
}

async function runCalls(
	tool: AnyAgentTool,
	toolCalls: ToolCall[],
	hooks: ToolHooks = {},
): Promise<ToolResultMessage[]> {
	const { messages } = await executeToolCalls({ tools: [tool], toolCalls, ...hooks });
	return messages;
}

function allSucceeded(results: { isError?: boolean }[], count: number): boolean {
	return results.length === count && results.every((result) => !result.isError);
}

async function writesLanded({ dataDir }: BenchContext): Promise<boolean> {
	return (await readdir(join(dataDir, WRITE_DIR))).length === WRITES;
}

const range = (count: number) => Array.from({ length: count }, (_, index) => index);

/** The cases of issue 18 the other groups lack. */
export const cases: BenchCase[] = [
	{
		group: "everyday",
		name: "grep a literal in a 5 MB single-line file",
		goal: "≤ 1.5× rg | cut",
		maxRatio: 1.5,
		setup: makeMinified,
		toolbelt: async ({ dataDir }): Promise<BenchOutcome> => {
			const tool = createGrepTool(dataDir);
			const [result] = await runCalls(tool, [
				{ type: "toolCall", id: "g", name: "grep", arguments: { pattern: LITERAL, path: MINIFIED, literal: true } },
			]);
			const text = result?.content.map((block) => (block.type === "text" ? block.text : "")).join("") ?? "";
			return { ok: !result?.isError && text.includes(LITERAL) && text.length < 10_000 };
		},
		baseline: `${rg} -n -F ${LITERAL} ${MINIFIED} | cut -c1-500`,
	},
	{
		group: "everyday",
		name: `write ${WRITES} small files in sequence (one call at a time)`,
		goal: "≤ pi (817 ms); raw: a bash loop",
		maxMs: 817,
		repeat: 3,
		beforeEach: freshWriteDir,
		toolbelt: async (context): Promise<BenchOutcome> => {
			const tool = createWriteTool(context.dataDir);
			const results: ToolResultMessage[] = [];
			for (const index of range(WRITES)) results.push(...(await runCalls(tool, [writeCall(index)])));
			return { ok: allSucceeded(results, WRITES) && (await writesLanded(context)) };
		},
		baseline: `for i in $(seq 0 ${WRITES - 1}); do echo "content $i" > ${WRITE_DIR}/file-$i.txt; done`,
	},
	{
		group: "everyday",
		name: `write ${WRITES} small files in one parallel batch`,
		goal: "≤ pi (503 ms); raw: a bash loop",
		maxMs: 503,
		repeat: 3,
		beforeEach: freshWriteDir,
		toolbelt: async (context): Promise<BenchOutcome> => {
			const results = await runCalls(createWriteTool(context.dataDir), range(WRITES).map(writeCall));
			return { ok: allSucceeded(results, WRITES) && (await writesLanded(context)) };
		},
		baseline: `for i in $(seq 0 ${WRITES - 1}); do echo "content $i" > ${WRITE_DIR}/file-$i.txt; done`,
	},
	{
		group: "everyday",
		name: `write ${WRITES} small files in one batch through the safety layer`,
		goal: "report (what a guarded session pays: confinement, permissions, stale-write hashing)",
		repeat: 3,
		beforeEach: freshWriteDir,
		toolbelt: async (context): Promise<BenchOutcome> => {
			const { dataDir } = context;
			const safety = await createSafetyLayer({ cwd: dataDir, homeDir: join(dataDir, "home"), mode: "accept-edits" });
			const started = performance.now();
			const results = await runCalls(createWriteTool(dataDir), range(WRITES).map(writeCall), safety.hooks);
			const ms = performance.now() - started;
			return { ok: allSucceeded(results, WRITES) && (await writesLanded(context)), ms };
		},
		baseline: `for i in $(seq 0 ${WRITES - 1}); do echo "content $i" > ${WRITE_DIR}/file-$i.txt; done`,
	},
	{
		group: "everyday",
		name: `read ${READS} files of 256 KB in one parallel batch`,
		goal: "≤ 1.5× xargs -P100 head",
		maxRatio: 1.5,
		setup: makeReadFiles,
		toolbelt: async ({ dataDir }): Promise<BenchOutcome> => {
			const results = await runCalls(createReadTool(dataDir), range(READS).map(readCall));
			return { ok: allSucceeded(results, READS) };
		},
		baseline: `ls ${READ_DIR}/* | xargs -P100 -n1 head -n 2000 > /dev/null`,
	},
	{
		group: "everyday",
		name: `read the same ${READS} files one call after another`,
		goal: "≤ 1.3× a head loop",
		maxRatio: 1.3,
		setup: makeReadFiles,
		toolbelt: async ({ dataDir }): Promise<BenchOutcome> => {
			const tool = createReadTool(dataDir);
			const results: ToolResultMessage[] = [];
			for (const index of range(READS)) results.push(...(await runCalls(tool, [readCall(index)])));
			return { ok: allSucceeded(results, READS) };
		},
		baseline: `for f in ${READ_DIR}/*; do head -n 2000 "$f"; done > /dev/null`,
	},
];
