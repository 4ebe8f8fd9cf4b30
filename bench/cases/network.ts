// The sandbox's network proxy against a direct connection: a 100 MB download from a loopback
// server (plain `http://` through the proxy, and a `CONNECT` tunnel), and the set-up time of one
// connection. Both sides are the same curl, timed by curl itself (`-w %{time_total}`), so the
// sandbox's start-up is not counted: only the path of the bytes. The direct and proxied runs take
// turns within each run of the case, so a drift of the machine's speed lands on both.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { createSandbox, type Sandbox } from "../../src/safety/sandbox.js";
import { createBashTool } from "../../src/tools/bash.js";
import { localShellOperations } from "../../src/workspace/local/shell/local-operations.js";
import { median } from "../median.js";
import type { BenchCase, BenchOutcome } from "../types.js";

const megabyte = 2 ** 20;
const downloadBytes = 100 * megabyte;
const setupConnections = 20;

/** The server, in its own process so that its work is not counted as the proxy's. */
const serverSource = `
const http = require("node:http");
const chunk = Buffer.alloc(${megabyte}, 120);
const server = http.createServer((request, response) => {
	if (request.url !== "/100m") return response.end("ok");
	response.writeHead(200, { "content-length": ${downloadBytes} });
	let left = ${downloadBytes / megabyte};
	const more = () => { while (left > 0) { left--; if (!response.write(chunk)) return response.once("drain", more); } response.end(); };
	more();
});
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
`;

interface Fixture {
	port: number;
	proxied: ReturnType<typeof createBashTool>;
	direct: ReturnType<typeof createBashTool>;
}

let fixture: Promise<Fixture> | undefined;
let server: ChildProcess | undefined;
process.once("exit", () => server?.kill());

async function startFixture(dataDir: string): Promise<Fixture> {
	const child = spawn(process.execPath, ["-e", serverSource], { stdio: ["ignore", "pipe", "inherit"] });
	server = child;
	const port = await new Promise<number>((resolve, reject) => {
		child.stdout?.once("data", (data: Buffer) => resolve(Number(data.toString().trim())));
		child.once("exit", () => reject(new Error("the bench server ended")));
	});
	const project = join(dataDir, "project");
	await mkdir(project, { recursive: true });
	const sandbox: Sandbox = await createSandbox({
		writableRoots: [project],
		network: { allow: ["bench.test", `127.0.0.1:${port}`], hosts: { "bench.test": "127.0.0.1" } },
	});
	return {
		port,
		proxied: createBashTool(project, { operations: sandbox.wrap(localShellOperations) }),
		direct: createBashTool(project),
	};
}

async function output(tool: ReturnType<typeof createBashTool>, command: string): Promise<string> {
	const result = await tool.execute("bench", { command, timeout: 600 }, undefined);
	const first = result.content[0];
	return first?.type === "text" ? first.text : "";
}

/** `curl` printing, per line, the bytes received and the seconds of `field`, for each of `count` connections. */
function curls(url: string, field: string, count: number, options: string): string {
	return `for i in $(seq ${count}); do curl -sS -o /dev/null ${options} -w '%{size_download} %{${field}}\\n' ${url}; done`;
}

function parse(text: string): { bytes: number; ms: number }[] {
	return [...text.matchAll(/^(\d+) ([\d.]+)$/gm)].map((match) => ({
		bytes: Number(match[1]),
		ms: Number(match[2]) * 1000,
	}));
}

/** What each run of a case measured on each side, for the note (the child prints the last run's note). */
const runTimes = new Map<string, { proxied: number[]; direct: number[] }>();

/**
 * One case: each run measures the proxied path and the direct one (in alternating order) with the
 * same curl command, and reports the proxied time; the note gives the direct median and the ratio.
 */
function versusDirect(options: {
	name: string;
	goal: string;
	path: string;
	field: string;
	count: number;
	curlOptions: string;
	expectBytes: number;
}): BenchCase {
	let run = 0;
	return {
		group: "network",
		name: options.name,
		goal: options.goal,
		repeat: 4,
		toolbelt: async ({ dataDir }): Promise<BenchOutcome> => {
			fixture ??= startFixture(dataDir);
			const { port, proxied, direct } = await fixture;
			const measure = async (side: "proxied" | "direct") =>
				parse(
					await output(
						side === "proxied" ? proxied : direct,
						side === "proxied"
							? curls(`http://bench.test:${port}${options.path}`, options.field, options.count, options.curlOptions)
							: curls(`http://127.0.0.1:${port}${options.path}`, options.field, options.count, "--noproxy '*'"),
					),
				);
			const order: ("proxied" | "direct")[] = run++ % 2 === 0 ? ["proxied", "direct"] : ["direct", "proxied"];
			const results: Record<string, { bytes: number; ms: number }[]> = {};
			for (const side of order) results[side] = await measure(side);
			const viaProxy = results.proxied ?? [];
			const straight = results.direct ?? [];
			const ok =
				[viaProxy, straight].every((list) => list.length === options.count) &&
				[...viaProxy, ...straight].every((entry) => entry.bytes === options.expectBytes);
			const times = runTimes.get(options.name) ?? { proxied: [], direct: [] };
			runTimes.set(options.name, times);
			const ms = median(viaProxy.map((entry) => entry.ms));
			times.proxied.push(ms);
			times.direct.push(median(straight.map((entry) => entry.ms)));
			const directMs = median(times.direct);
			const ratio = median(times.proxied) / directMs;
			return {
				ok,
				ms,
				note: `direct ${directMs.toFixed(1)} ms (median of ${times.direct.length} runs, warm-up included); proxy / direct ${ratio.toFixed(2)}`,
			};
		},
	};
}

/** The proxy of `sandbox.network`: what it costs a download and a connection, against going direct. */
export const cases: BenchCase[] = [
	versusDirect({
		name: "100 MB download from a loopback server, plain http:// through the proxy vs direct (curl's own time)",
		goal: "informational: proxy / direct (same run, alternating)",
		path: "/100m",
		field: "time_total",
		count: 1,
		curlOptions: "",
		expectBytes: downloadBytes,
	}),
	versusDirect({
		name: "100 MB download from a loopback server, CONNECT tunnel through the proxy vs direct (curl's own time)",
		goal: "informational: proxy / direct (same run, alternating)",
		path: "/100m",
		field: "time_total",
		count: 1,
		curlOptions: "-p",
		expectBytes: downloadBytes,
	}),
	versusDirect({
		name: `connection set-up: time to the first byte of a 2-byte answer, median of ${setupConnections} connections, through the proxy vs direct`,
		goal: "informational: proxy / direct (same run, alternating)",
		path: "/small",
		field: "time_starttransfer",
		count: setupConnections,
		curlOptions: "",
		expectBytes: 2,
	}),
];
