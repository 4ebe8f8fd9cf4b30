import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import type { AnyAgentTool } from "../../src/engine/types.js";
import { createJobRegistry, createTool, type JobRegistry } from "../../src/tools/index.js";
import type { BenchCase } from "../types.js";

const megabyte = 1024 * 1024;

function jobTools(cwd: string, jobs: JobRegistry) {
	const options = { jobs };
	return { bash: createTool("bash", cwd, options), output: createTool("bash_output", cwd, options) };
}

async function textOf(tool: AnyAgentTool, args: Record<string, unknown>): Promise<{ text: string; details: unknown }> {
	const result = await tool.execute("bench", args as never, undefined);
	const first = result.content[0];
	return { text: first?.type === "text" ? first.text : "", details: result.details };
}

/** Waits (bounded) until `check` holds. */
async function until(check: () => boolean, timeoutMs: number): Promise<boolean> {
	const deadline = Date.now() + timeoutMs;
	while (!check() && Date.now() < deadline) await delay(10);
	return check();
}

/** Background jobs: reading a job's output, and memory with many large jobs. */
export const cases: BenchCase[] = [
	{
		group: "jobs",
		name: "bash_output of 1 MB since the last read",
		goal: "≤ 3× tail -c of the same file",
		maxRatio: 3,
		repeat: 10,
		setup: async (context) => {
			const path = join(context.dataDir, "one-megabyte.txt");
			if (existsSync(path)) return;
			const line = `${"x".repeat(99)}\n`;
			await writeFile(path, line.repeat(megabyte / 100));
		},
		baseline: "tail -c 51200 one-megabyte.txt > /dev/null",
		toolbelt: async (context) => {
			const jobs = createJobRegistry();
			const { bash, output } = jobTools(context.dataDir, jobs);
			try {
				const started = await textOf(bash, { command: "cat one-megabyte.txt; sleep 60", run_in_background: true });
				const id = (started.details as { jobId: string }).jobId;
				const job = jobs.get(id);
				// The start already read the first part: what is unread now is read again from scratch.
				job.readOffset = 0;
				const full = await until(() => job.totalBytes >= Math.floor(megabyte / 100) * 100, 10_000);
				const began = performance.now();
				const read = await textOf(output, { id });
				const ms = performance.now() - began;
				const ok = full && read.text.includes("x".repeat(99)) && read.text.includes("not shown");
				return { ok, ms, note: "tail within the budget + notice; only the call is timed" };
			} finally {
				await jobs.dispose();
			}
		},
	},
	{
		group: "jobs",
		name: "10 jobs × 100 MB of output",
		goal: "RSS growth ≤ 96 MB (flat)",
		maxRssGrowthMB: 96,
		repeat: 1,
		baseline: "for i in 1 2 3 4 5 6 7 8 9 10; do yes | head -c 100M > /dev/null & done; wait",
		toolbelt: async (context) => {
			const jobs = createJobRegistry();
			const { bash } = jobTools(context.dataDir, jobs);
			try {
				const ids: string[] = [];
				for (let index = 0; index < 10; index++) {
					// The sleep keeps each job held until it is measured (an ended job is forgotten once read).
					const started = await textOf(bash, { command: "yes | head -c 100M; sleep 120", run_in_background: true });
					ids.push((started.details as { jobId: string }).jobId);
				}
				const held = ids.map((id) => jobs.get(id));
				const done = await until(() => held.every((job) => job.totalBytes >= 100 * megabyte), 300_000);
				const bytes = held.reduce((total, job) => total + job.totalBytes, 0);
				return { ok: done && bytes === 10 * 100 * megabyte, note: `${bytes / megabyte} MB through 10 jobs` };
			} finally {
				await jobs.dispose();
			}
		},
	},
];
