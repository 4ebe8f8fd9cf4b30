import { stat } from "node:fs/promises";
import { join } from "node:path";
import { Type } from "typebox";
import { executeToolCalls } from "../../src/engine/execute-tool-calls.js";
import type { AgentTool, ToolCall } from "../../src/engine/types.js";
import { createSessionRecorder, readSessionFile, renderSessionHtml, SessionStore } from "../../src/sessions/index.js";
import type { BenchCase, BenchContext } from "../types.js";

const schema = Type.Object({ value: Type.Number() });
const CALLS = 1000;

function noop(): AgentTool<typeof schema> {
	return {
		name: "noop",
		description: "benchmark tool",
		parameters: schema,
		execute: async (_id, args) => ({ content: [{ type: "text", text: `value ${args.value}: ${"x".repeat(200)}` }] }),
	};
}

function calls(count: number, offset = 0): ToolCall[] {
	return Array.from({ length: count }, (_, index) => ({
		type: "toolCall",
		id: `call-${offset + index}`,
		name: "noop",
		arguments: { value: index },
	}));
}

/** Ms for `CALLS` calls in batches of 10, with or without a recorder. */
async function timedBatches(context: BenchContext, record: boolean): Promise<number> {
	const store = SessionStore.open({ stateDir: join(context.dataDir, "state") });
	const recorder = record ? createSessionRecorder({ store, source: "library", cwd: context.dataDir }) : undefined;
	const tools = [noop()];
	const started = performance.now();
	for (let batch = 0; batch < CALLS / 10; batch++) {
		await executeToolCalls({
			tools,
			toolCalls: calls(10, batch * 10),
			...(recorder ? { ...recorder.wrapHooks({}), onEvent: recorder.onToolEvent } : { onEvent: () => {} }),
		});
	}
	const elapsed = performance.now() - started;
	recorder?.close();
	await store.prune([]);
	return elapsed;
}

/** Writes a session of 500 calls: reads, edits with diffs, commands with 40 lines of output. */
async function sessionOf500(context: BenchContext): Promise<string> {
	const store = SessionStore.open({ stateDir: join(context.dataDir, "export-state") });
	const recorder = createSessionRecorder({ store, source: "run", cwd: context.dataDir });
	const diff = ["@@ -1,3 +1,3 @@", " const a = 1;", "-const b = 2;", "+const b = 3;", " const c = 4;"].join("\n");
	for (let index = 0; index < 500; index++) {
		const id = `c${index}`;
		const kind = index % 3;
		const toolName = kind === 0 ? "read" : kind === 1 ? "edit" : "bash";
		const args = kind === 2 ? { command: `npm test -- case ${index}` } : { path: `src/file-${index}.ts` };
		recorder.onToolEvent({ type: "tool_execution_start", toolCallId: id, toolName, args });
		const text =
			kind === 2 ? Array.from({ length: 40 }, (_, line) => `test ${line} passed`).join("\n") : "x\n".repeat(100);
		recorder.onToolEvent({
			type: "tool_execution_end",
			toolCallId: id,
			toolName,
			result: { content: [{ type: "text", text }], ...(kind === 1 ? { details: { diff } } : {}) },
			isError: false,
			durationMs: 12,
		});
	}
	recorder.close();
	return recorder.path;
}

/** Sessions (issue 30): what recording costs a call, and what an export of a long session costs. */
export const cases: BenchCase[] = [
	{
		group: "sessions",
		name: "recording overhead, 1000 no-op calls (10 per batch)",
		goal: "≤ 0.2 ms per call (no files hashed)",
		maxMs: 200,
		repeat: 3,
		toolbelt: async (context) => {
			await timedBatches(context, false);
			const plain = await timedBatches(context, false);
			const recorded = await timedBatches(context, true);
			const extra = Math.max(0, recorded - plain);
			return {
				ok: true,
				ms: extra,
				note: `${((extra / CALLS) * 1000).toFixed(0)} µs per call (plain ${plain.toFixed(0)} ms)`,
			};
		},
	},
	{
		group: "sessions",
		name: "export of a 500-call session to HTML",
		goal: "< 500 ms",
		maxMs: 500,
		repeat: 3,
		toolbelt: async (context) => {
			const path = await sessionOf500(context);
			const started = performance.now();
			const html = renderSessionHtml(await readSessionFile(path));
			const ms = performance.now() - started;
			const jsonl = (await stat(path)).size;
			return {
				ok: html.includes("test 39 passed") && html.includes('class="add"'),
				ms,
				note: `page ${(Buffer.byteLength(html) / 1024).toFixed(0)} KB from a ${(jsonl / 1024).toFixed(0)} KB session`,
			};
		},
	},
];
