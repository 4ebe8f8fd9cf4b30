import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { rm, stat } from "node:fs/promises";
import { ToolError } from "../../src/engine/errors.js";
import { type BashToolDetails, createBashTool } from "../../src/tools/bash.js";
import { median } from "../median.js";
import type { BenchCase } from "../types.js";

const gigabyte = 2 ** 30;

/** Pids of live processes whose environment holds `name=value` (Linux /proc). */
function processesWithMarker(name: string, value: string): number[] {
	const needle = Buffer.from(`${name}=${value}\0`);
	const found: number[] = [];
	for (const entry of readdirSync("/proc")) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			const status = readFileSync(`/proc/${entry}/stat`, "latin1");
			if (/^[ZX]/.test(status.slice(status.lastIndexOf(")") + 2))) continue;
			if (readFileSync(`/proc/${entry}/environ`).includes(needle)) found.push(Number(entry));
		} catch {
			// Gone meanwhile, or not ours.
		}
	}
	return found;
}

async function runBash(cwd: string, command: string, options: { timeout?: number; env?: Record<string, string> } = {}) {
	const tool = createBashTool(cwd, { env: options.env });
	try {
		const result = await tool.execute("bench", { command, timeout: options.timeout }, undefined);
		const first = result.content[0];
		return { text: first?.type === "text" ? first.text : "", details: result.details, error: false };
	} catch (error) {
		if (!(error instanceof ToolError)) throw error;
		return { text: error.message, details: error.details as BashToolDetails | undefined, error: true };
	}
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `bash -c 'echo ok'` spawned from this process, as issue 32's goal for the fixed cost names it; ms. */
function rawEchoMs(cwd: string): Promise<number> {
	return new Promise((resolve, reject) => {
		const started = performance.now();
		const child = spawn("bash", ["-c", "echo ok"], { cwd, stdio: ["ignore", "pipe", "ignore"] });
		child.stdout.resume();
		child.on("error", reject);
		child.on("close", () => resolve(performance.now() - started));
	});
}

/**
 * `echo ok` calls and raw spawns taking turns in one process: `gapMs` apart (a model's reply), or
 * one right after another (`gapMs` 0: the same count of each in a row). Medians per call.
 */
async function echoTurns(cwd: string, gapMs: number): Promise<{ ok: boolean; ms: number; rawMs: number }> {
	const tool = createBashTool(cwd);
	const calls: number[] = [];
	const raws: number[] = [];
	let ok = true;
	const call = async () => {
		const started = performance.now();
		const result = await tool.execute("bench", { command: "echo ok" }, undefined);
		calls.push(performance.now() - started);
		const first = result.content[0];
		ok &&= first?.type === "text" && first.text === "ok";
	};
	for (let turn = 0; turn < 6; turn++) {
		if (gapMs > 0) {
			await pause(gapMs);
			await call();
			await pause(gapMs);
			raws.push(await rawEchoMs(cwd));
		} else {
			await call();
		}
	}
	if (gapMs === 0) for (let turn = 0; turn < 6; turn++) raws.push(await rawEchoMs(cwd));
	return { ok, ms: median(calls), rawMs: median(raws) };
}

/** Shell: the bash tool against the raw commands doing the same work. */
export const cases: BenchCase[] = [
	{
		group: "shell",
		name: "yes | head -c 1G",
		goal: "≤ 1.3× raw with tee to a file; RSS growth ≤ 64 MB",
		maxRatio: 1.3,
		maxRssGrowthMB: 64,
		repeat: 3,
		baseline: "yes | head -c 1G | tee full-output.txt | tail -c 51200 > /dev/null; rm -f full-output.txt",
		toolbelt: async (context) => {
			const { text, details, error } = await runBash(context.dataDir, "yes | head -c 1G", { timeout: 600 });
			const path = details?.fullOutputPath;
			const fileBytes = path ? (await stat(path)).size : 0;
			if (path) await rm(path, { force: true });
			const truncation = details?.truncation;
			const ok =
				!error &&
				truncation?.truncated === true &&
				truncation.originalBytes === gigabyte &&
				truncation.originalLines === gigabyte / 2 &&
				truncation.outputBytes <= 50 * 1024 &&
				text.startsWith("y\ny\n") &&
				fileBytes === gigabyte;
			return { ok, note: `kept ${truncation?.outputLines} lines; full-output file ${fileBytes} bytes` };
		},
	},
	{
		group: "shell",
		name: "seq 1 100000",
		goal: "≤ 2× seq | tail -n 2000",
		maxRatio: 2,
		repeat: 20,
		baseline: "seq 1 100000 | tail -n 2000",
		toolbelt: async (context) => {
			const { text, details, error } = await runBash(context.dataDir, "seq 1 100000");
			const path = details?.fullOutputPath;
			if (path) await rm(path, { force: true });
			const lines = text.split("\n\n")[0]?.split("\n") ?? [];
			const ok =
				!error && lines.length === 2000 && lines[0] === "98001" && lines[1999] === "100000" && path !== undefined;
			return { ok, note: "last 2000 lines + full-output file" };
		},
	},
	{
		group: "shell",
		name: "echo ok (the fixed cost of one call)",
		goal: "≤ 25 ms a call",
		maxMs: 25,
		repeat: 30,
		baseline: "bash -c 'echo ok' > /dev/null",
		toolbelt: async (context) => {
			const { text, details, error } = await runBash(context.dataDir, "echo ok");
			return {
				ok: !error && text === "ok" && details?.backgroundPids.length === 0,
				note: "start, contain, read, clean up",
			};
		},
	},
	{
		group: "shell",
		name: "echo ok, calls a model's reply apart (150 ms), against bash -c spawned from Node",
		goal: "≤ 2× (issue 32)",
		maxRatio: 2,
		toolbelt: async (context) => ({ ...(await echoTurns(context.dataDir, 150)), note: "medians of 6 turns a run" }),
	},
	{
		group: "shell",
		name: "echo ok, calls one after another, against bash -c spawned from Node",
		goal: "≤ 2× (issue 32)",
		maxRatio: 2,
		toolbelt: async (context) => ({
			...(await echoTurns(context.dataDir, 0)),
			note: "medians of 6 calls in a row a run",
		}),
	},
	{
		group: "shell",
		name: "timeout 1 s of bash -c 'sleep 100 & sleep 100'",
		goal: "settles ≤ 1.5 s, zero survivors",
		maxMs: 1500,
		repeat: 3,
		toolbelt: async (context) => {
			const marker = randomUUID();
			const { details, error } = await runBash(context.dataDir, "bash -c 'sleep 100 & sleep 100'", {
				timeout: 1,
				env: { TOOLBELT_BENCH_MARKER: marker },
			});
			const survivors = processesWithMarker("TOOLBELT_BENCH_MARKER", marker);
			return {
				ok: error && details?.timedOut === true && survivors.length === 0,
				note: `survivors: ${survivors.length}`,
			};
		},
	},
];
