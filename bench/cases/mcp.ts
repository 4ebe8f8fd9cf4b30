import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { BenchCase, BenchContext } from "../types.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const CALLS = 1000;
const CONCURRENCY = 8;
const FILE_TEXT = Array.from({ length: 20 }, (_, index) => `line ${index + 1} of a small file`).join("\n");

/** The built `toolbelt mcp` (`npm run bench` builds first), serving the read-only tools of `cwd`. */
function serverCommand(cwd: string): { command: string; args: string[] } {
	return { command: process.execPath, args: [join(root, "dist/cli/bin.cjs"), "mcp", "--cwd", cwd, "--read-only"] };
}

// One server per bench process: the warm-up run starts it, the timed runs reuse it, as a client would.
let client: Client | undefined;
async function connected(context: BenchContext): Promise<Client> {
	if (client) return client;
	const { command, args } = serverCommand(context.dataDir);
	client = new Client({ name: "toolbelt-bench", version: "1.0.0" });
	await client.connect(new StdioClientTransport({ command, args, stderr: "ignore" }));
	return client;
}

async function smallCall(mcp: Client): Promise<boolean> {
	// refresh: a repeated read of an unchanged file is otherwise answered with "unchanged since your last read".
	const result = (await mcp.callTool({ name: "read", arguments: { path: "small.txt", limit: 5, refresh: true } })) as {
		content: { type: string; text?: string }[];
		isError?: boolean;
	};
	return !result.isError && (result.content[0]?.text ?? "").includes("line 5 of a small file");
}

function percentile(sorted: number[], fraction: number): number {
	return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * fraction) - 1)] ?? Number.NaN;
}

async function setup(context: BenchContext): Promise<void> {
	await mkdir(context.dataDir, { recursive: true });
	await writeFile(join(context.dataDir, "small.txt"), `${FILE_TEXT}\n`);
}

/** MCP server overhead: a small `read` call over stdio, one at a time and 8 at a time. */
export const cases: BenchCase[] = [
	{
		group: "mcp",
		name: "stdio round trip of a small read, median of 1000 calls",
		goal: "median < 2 ms, p99 < 10 ms",
		maxMs: 2,
		repeat: 3,
		setup,
		toolbelt: async (context) => {
			const mcp = await connected(context);
			const latencies: number[] = [];
			let ok = true;
			for (let index = 0; index < CALLS; index++) {
				const started = performance.now();
				ok = (await smallCall(mcp)) && ok;
				latencies.push(performance.now() - started);
			}
			latencies.sort((a, b) => a - b);
			const p99 = percentile(latencies, 0.99);
			// The table's goal check sees the median; the p99 goal is read from the note.
			return { ok, ms: percentile(latencies, 0.5), note: `p99 ${p99.toFixed(2)} ms` };
		},
	},
	{
		group: "mcp",
		name: "throughput: 1000 small reads, 8 concurrent",
		goal: "> 1000 calls/s (< 1000 ms)",
		maxMs: 1000,
		repeat: 3,
		setup,
		toolbelt: async (context) => {
			const mcp = await connected(context);
			let next = 0;
			let ok = true;
			const started = performance.now();
			await Promise.all(
				Array.from({ length: CONCURRENCY }, async () => {
					while (next < CALLS) {
						next++;
						ok = (await smallCall(mcp)) && ok;
					}
				}),
			);
			const ms = performance.now() - started;
			return { ok, ms, note: `${Math.round((CALLS / ms) * 1000)} calls/s` };
		},
	},
];
