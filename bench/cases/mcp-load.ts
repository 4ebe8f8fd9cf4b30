import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { makeBombPdf } from "../../test/helpers/make-pdf.js";
import type { BenchCase, BenchContext } from "../types.js";

const root = fileURLToPath(new URL("../../", import.meta.url));
const TOTAL_CALLS = 10_000;
/** One hostile message after every this many benign ones. */
const HOSTILE_EVERY = 100;
const MiB = 2 ** 20;

async function setup(context: BenchContext): Promise<void> {
	await mkdir(context.dataDir, { recursive: true });
	await writeFile(join(context.dataDir, "small.txt"), "line 1 of a small file\nline 2 of a small file\n");
	// `(a+)+$` backtracks catastrophically on a run of a's followed by another character.
	await writeFile(join(context.dataDir, "catastrophic.txt"), `${"a".repeat(40)}b\n`.repeat(50));
	await writeFile(join(context.dataDir, "bomb.pdf"), makeBombPdf(4 * MiB));
}

/** The hostile messages, in turn: each answered with an error or a bounded result, never a crash. */
const hostile: ((id: number) => string)[] = [
	(id) =>
		`{"method":"tools/call","params":{"name":"write","arguments":{"path":"big.txt","content":"${"x".repeat(12 * MiB)}"}},"jsonrpc":"2.0","id":${id}}\n`,
	() => '{"jsonrpc":"2.0","id":"broken","method":\n',
	(id) => call(id, "grep", { pattern: "(a+)+$", path: "catastrophic.txt" }),
	(id) => call(id, "grep", { pattern: "a{1000}{1000}", path: "catastrophic.txt" }),
	(id) => call(id, "read", { path: "bomb.pdf" }),
];

function call(id: number, name: string, args: Record<string, unknown>): string {
	return `${JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } })}\n`;
}

interface LoadOutcome {
	benignAnswered: number;
	benignSent: number;
	hostileAnswered: number;
	hostileSent: number;
	peakServerMB: number;
	ms: number;
}

/** Sends every call without waiting for answers, then waits for all of them (at most 10 minutes). */
async function loadRun(context: BenchContext): Promise<LoadOutcome> {
	const server = spawn(process.execPath, [join(root, "dist/cli/bin.cjs"), "mcp", "--cwd", context.dataDir], {
		stdio: ["pipe", "pipe", "ignore"],
	});
	const benign = new Set<number>();
	const hostileIds = new Set<number>();
	let benignAnswered = 0;
	let hostileAnswered = 0;
	let pending = "";
	let allAnswered: () => void = () => {};
	const done = new Promise<void>((resolve) => {
		allAnswered = resolve;
	});
	let sending = true;
	server.stdout.setEncoding("utf8");
	server.stdout.on("data", (text: string) => {
		pending += text;
		let newline = pending.indexOf("\n");
		while (newline !== -1) {
			const answer = JSON.parse(pending.slice(0, newline)) as { id?: number; result?: { isError?: boolean } };
			pending = pending.slice(newline + 1);
			newline = pending.indexOf("\n");
			if (typeof answer.id !== "number") continue;
			if (benign.delete(answer.id) && answer.result && !answer.result.isError) benignAnswered++;
			if (hostileIds.delete(answer.id)) hostileAnswered++;
		}
		if (!sending && benign.size === 0 && hostileIds.size === 0) allAnswered();
	});
	const write = async (line: string) => {
		if (!server.stdin.write(line)) await once(server.stdin, "drain");
	};
	await write(
		`${JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "load", version: "1" } } })}\n`,
	);
	await write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
	const started = performance.now();
	let hostileSent = 0;
	for (let id = 1; id <= TOTAL_CALLS; id++) {
		if (id % HOSTILE_EVERY === 0) {
			const make = hostile[hostileSent % hostile.length] as (id: number) => string;
			// The unparsable line has no id to answer under: counted as answered by the -32700 below.
			if (hostileSent % hostile.length !== 1) hostileIds.add(id);
			hostileSent++;
			await write(make(id));
			continue;
		}
		benign.add(id);
		await write(
			id % 2 === 0
				? call(id, "read", { path: "small.txt", refresh: true })
				: `{"jsonrpc":"2.0","id":${id},"method":"ping"}\n`,
		);
	}
	const benignSent = TOTAL_CALLS - hostileSent;
	sending = false;
	if (benign.size === 0 && hostileIds.size === 0) allAnswered();
	const timer = setTimeout(allAnswered, 10 * 60_000);
	await done;
	const ms = performance.now() - started;
	clearTimeout(timer);
	const status = readFileSync(`/proc/${server.pid}/status`, "utf8");
	const peakServerMB = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]) / 1024;
	server.stdin.end();
	const exited = once(server, "exit");
	const kill = setTimeout(() => server.kill("SIGKILL"), 10_000);
	await exited;
	clearTimeout(kill);
	return { benignAnswered, benignSent, hostileAnswered, hostileSent, peakServerMB, ms };
}

/** The MCP server under load with hostile messages mixed in: the server must outlive them and answer everyone. */
export const cases: BenchCase[] = [
	{
		group: "mcp-load",
		name: "10,000 calls in flight over stdio, 1 in 100 hostile (12 MB message, broken JSON, (a+)+$, a{1000}{1000}, a PDF page inflating to 4 MiB)",
		goal: "every benign call answered; server peak RSS reported",
		repeat: 1,
		setup,
		toolbelt: async (context) => {
			const outcome = await loadRun(context);
			const hostileWithId = outcome.hostileSent - Math.floor(outcome.hostileSent / hostile.length);
			return {
				ok: outcome.benignAnswered === outcome.benignSent && outcome.hostileAnswered === hostileWithId,
				ms: outcome.ms,
				note:
					`benign answered ${outcome.benignAnswered}/${outcome.benignSent}, hostile answered ${outcome.hostileAnswered}/${hostileWithId}` +
					` (+${outcome.hostileSent - hostileWithId} broken lines), server peak RSS ${outcome.peakServerMB.toFixed(0)} MB`,
			};
		},
	},
];
