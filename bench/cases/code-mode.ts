import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { executeToolCalls } from "../../src/engine/execute-tool-calls.js";
import type { AnyAgentTool, ToolCall, ToolResultMessage } from "../../src/engine/types.js";
import { createTool } from "../../src/tools/index.js";
import type { BenchCase, BenchContext } from "../types.js";

const CALLS = 200;

function toolsIn(dataDir: string): AnyAgentTool[] {
	return (["ls", "grep", "read", "code"] as const).map((name) => createTool(name, dataDir));
}

async function call(tools: AnyAgentTool[], name: string, args: Record<string, unknown>): Promise<ToolResultMessage> {
	const toolCall: ToolCall = { type: "toolCall", id: `${name}-${Math.random()}`, name, arguments: args };
	const { messages } = await executeToolCalls({ tools, toolCalls: [toolCall] });
	return messages[0] as ToolResultMessage;
}

const textBytes = (message: ToolResultMessage) =>
	message.content.reduce((sum, block) => sum + (block.type === "text" ? Buffer.byteLength(block.text) : 0), 0);

/** 40 folders of 10 files, each file with a few TODOs among 200 lines. */
async function setup({ dataDir }: BenchContext): Promise<void> {
	for (let folder = 0; folder < 40; folder++) {
		await mkdir(join(dataDir, `f${folder}`), { recursive: true });
		for (let file = 0; file < 10; file++) {
			const lines = Array.from({ length: 200 }, (_, line) =>
				line % (17 + folder) === 0 ? `// TODO item ${folder}-${file}-${line}` : `const value${line} = ${line};`,
			);
			await writeFile(join(dataDir, `f${folder}`, `file${file}.ts`), `${lines.join("\n")}\n`);
		}
	}
}

const todoProgram = `const hits = await tools.grep({ pattern: "TODO", limit: 5000 });
const byFolder = {};
for (const line of hits.text.split("\\n")) { const match = /^(f\\d+)\\/([^:]+):(\\d+):/.exec(line); if (match) (byFolder[match[1]] ??= []).push(match); }
const top = Object.entries(byFolder).sort((a, b) => b[1].length - a[1].length).slice(0, 5);
const firsts = await Promise.all(top.map(([folder, matches]) => tools.read({ path: folder + "/" + matches[0][2], offset: Number(matches[0][3]), limit: 1 })));
return top.map(([folder, matches], index) => ({ folder, todos: matches.length, first: firsts[index].text.trim() }));`;

/** Code mode: the cost of a call made from a program, and what the model reads with and without it. */
export const cases: BenchCase[] = [
	{
		group: "code-mode",
		name: `${CALLS} ls calls from one program vs ${CALLS} direct calls`,
		goal: "≤ 1 ms more per inner call",
		repeat: 3,
		setup,
		toolbelt: async ({ dataDir }) => {
			const tools = toolsIn(dataDir);
			let started = performance.now();
			for (let index = 0; index < CALLS; index++) await call(tools, "ls", { path: "f0" });
			const directMs = performance.now() - started;
			// The first program starts its worker cold; the later ones take the spare started when
			// the one before ended, after a pause that stands for the model's turn in between.
			const modelTurn = () => new Promise((resolve) => setTimeout(resolve, 1500));
			started = performance.now();
			const cold = await call(tools, "code", { code: "return 1" });
			const coldMs = performance.now() - started;
			await modelTurn();
			started = performance.now();
			const empty = await call(tools, "code", { code: "return 1" });
			const startMs = performance.now() - started;
			await modelTurn();
			started = performance.now();
			const program = await call(tools, "code", {
				code: `let entries = 0; for (let index = 0; index < ${CALLS}; index++) entries += (await tools.ls({ path: "f0" })).details.entries; return entries;`,
			});
			const programMs = performance.now() - started;
			const perCall = (programMs - startMs - directMs) / CALLS;
			const warm = (message: ToolResultMessage) => (message.details as { warmStart?: boolean }).warmStart === true;
			const ok =
				!cold.isError &&
				!empty.isError &&
				warm(empty) &&
				warm(program) &&
				!program.isError &&
				JSON.stringify(program.content).includes(String(CALLS * 10));
			return {
				ok,
				ms: programMs,
				note: `${perCall.toFixed(2)} ms more per call (direct ${(directMs / CALLS).toFixed(2)} ms/call); empty program ${coldMs.toFixed(0)} ms cold, ${startMs.toFixed(0)} ms on the warm spare`,
			};
		},
	},
	{
		group: "code-mode",
		name: "TODO question: bytes the model reads, one program vs grep + reads",
		goal: "fewer bytes with code mode",
		repeat: 1,
		setup,
		toolbelt: async ({ dataDir }) => {
			const tools = toolsIn(dataDir);
			const program = await call(tools, "code", { code: todoProgram });
			const grep = await call(tools, "grep", { pattern: "TODO", limit: 5000 });
			const reads = await Promise.all(
				[0, 1, 2, 3, 4].map((folder) => call(tools, "read", { path: `f${folder}/file0.ts`, limit: 20 })),
			);
			const withoutBytes = textBytes(grep) + reads.reduce((sum, message) => sum + textBytes(message), 0);
			const withBytes = textBytes(program);
			return {
				ok: !program.isError && withBytes < withoutBytes,
				note: `${withBytes} bytes in 1 call with code mode, ${withoutBytes} bytes in 6 calls without`,
			};
		},
	},
];
