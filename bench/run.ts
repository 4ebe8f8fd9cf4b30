// `npm run bench [-- FILTER…]`: runs every case (or those whose `group/name` contains a filter),
// toolbelt's side in a fresh Node process, the raw command under /usr/bin/time, and prints a table.
import { execFile, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { dataDirOf, loadCases } from "./load-cases.js";
import { median } from "./median.js";
import type { BenchCase, BenchContext } from "./types.js";

const run = promisify(execFile);
const filters = process.argv.slice(2);
const childScript = fileURLToPath(new URL("./child.ts", import.meta.url));
const hasGnuTime = existsSync("/usr/bin/time");

interface Row {
	id: string;
	goal: string;
	toolbeltMs: number;
	baselineMs?: number;
	ratio?: number;
	rssGrowthMB: number;
	baselineRssMB?: number;
	ok: boolean;
	met: boolean;
	note?: string;
}

async function runToolbelt(file: string, benchCase: BenchCase, repeat: number) {
	const { stdout } = await run(
		process.execPath,
		["--expose-gc", "--import", "tsx", childScript, file, benchCase.name, String(repeat)],
		{ maxBuffer: 16 * 2 ** 20, timeout: 20 * 60_000 },
	);
	const lastLine = stdout.trim().split("\n").pop() ?? "{}";
	return JSON.parse(lastLine) as {
		times: number[];
		rawTimes: number[];
		ok: boolean;
		note?: string;
		rssGrowthMB: number;
	};
}

async function runBaseline(benchCase: BenchCase, context: BenchContext, repeat: number) {
	const command = typeof benchCase.baseline === "function" ? benchCase.baseline(context) : benchCase.baseline;
	if (!command) return undefined;
	const times: number[] = [];
	let peakKB = 0;
	for (let index = 0; index <= repeat; index++) {
		await benchCase.beforeEach?.(context);
		const argv = hasGnuTime ? ["/usr/bin/time", "-f", "%M", "bash", "-c", command] : ["bash", "-c", command];
		const started = performance.now();
		const result = spawnSync(argv[0] ?? "bash", argv.slice(1), {
			cwd: context.dataDir,
			stdio: ["ignore", "ignore", "pipe"],
			maxBuffer: 64 * 2 ** 20,
		});
		const elapsed = performance.now() - started;
		if (index === 0) continue; // warm-up: page cache, like toolbelt's side
		times.push(elapsed);
		const lastLine = result.stderr.toString().trim().split("\n").pop() ?? "";
		if (hasGnuTime && /^\d+$/.test(lastLine)) peakKB = Math.max(peakKB, Number(lastLine));
	}
	return { times, peakMB: hasGnuTime ? peakKB / 1024 : undefined };
}

const rows: Row[] = [];
for (const { file, benchCase } of await loadCases()) {
	const id = `${benchCase.group}/${benchCase.name}`;
	if (filters.length > 0 && !filters.some((filter) => id.includes(filter))) continue;
	const context: BenchContext = { dataDir: dataDirOf(benchCase.group) };
	await mkdir(context.dataDir, { recursive: true });
	process.stderr.write(`● ${id} … `);
	await benchCase.setup?.(context);
	const repeat = benchCase.repeat ?? 5;
	// With a raw command to compare against, the two sides take turns twice (A B A B): this VM's
	// speed drifts over seconds, and one side measured wholly after the other would carry the drift.
	const rounds = benchCase.baseline ? 2 : 1;
	const toolbeltRounds: Awaited<ReturnType<typeof runToolbelt>>[] = [];
	const baselineRounds: NonNullable<Awaited<ReturnType<typeof runBaseline>>>[] = [];
	for (let round = 0; round < rounds; round++) {
		toolbeltRounds.push(await runToolbelt(file, benchCase, repeat));
		const measured = await runBaseline(benchCase, context, repeat);
		if (measured) baselineRounds.push(measured);
	}
	const toolbelt = {
		times: toolbeltRounds.flatMap((result) => result.times),
		ok: toolbeltRounds.every((result) => result.ok),
		note: toolbeltRounds.at(-1)?.note,
		rssGrowthMB: Math.max(...toolbeltRounds.map((result) => result.rssGrowthMB)),
	};
	// A raw side the case timed itself, in turns with its calls (`BenchOutcome.rawMs`).
	const rawTimes = toolbeltRounds.flatMap((result) => result.rawTimes ?? []);
	const baseline =
		baselineRounds.length === 0 && rawTimes.length > 0
			? { ms: median(rawTimes), peakMB: undefined }
			: baselineRounds.length > 0
				? {
						ms: median(baselineRounds.flatMap((result) => result.times)),
						peakMB:
							baselineRounds[0]?.peakMB === undefined
								? undefined
								: Math.max(...baselineRounds.map((result) => result.peakMB ?? 0)),
					}
				: undefined;
	const toolbeltMs = median(toolbelt.times);
	const ratio = baseline ? toolbeltMs / baseline.ms : undefined;
	const met =
		toolbelt.ok &&
		(benchCase.maxRatio === undefined || (ratio !== undefined && ratio <= benchCase.maxRatio)) &&
		(benchCase.maxMs === undefined || toolbeltMs <= benchCase.maxMs) &&
		(benchCase.maxRssGrowthMB === undefined || toolbelt.rssGrowthMB <= benchCase.maxRssGrowthMB);
	rows.push({
		id,
		goal: benchCase.goal,
		toolbeltMs,
		baselineMs: baseline?.ms,
		ratio,
		rssGrowthMB: toolbelt.rssGrowthMB,
		baselineRssMB: baseline?.peakMB,
		ok: toolbelt.ok,
		met,
		note: toolbelt.note,
	});
	process.stderr.write(`${toolbeltMs.toFixed(1)} ms${ratio !== undefined ? ` (${ratio.toFixed(2)}×)` : ""}\n`);
}

const format = (value: number | undefined, digits = 1) => (value === undefined ? "–" : value.toFixed(digits));
// Case names and goals hold shell pipes; a bare `|` would split the Markdown cell.
const cell = (text: string | undefined) => (text ?? "").replaceAll("|", "\\|");
const lines = [
	"| case | goal | toolbelt ms | raw ms | ratio | toolbelt peak RSS growth MB | raw peak RSS MB | correct | goal met | note |",
	"|---|---|---:|---:|---:|---:|---:|---|---|---|",
	...rows.map(
		(row) =>
			`| ${cell(row.id)} | ${cell(row.goal)} | ${format(row.toolbeltMs)} | ${format(row.baselineMs)} | ${format(row.ratio, 2)} | ${format(row.rssGrowthMB)} | ${format(row.baselineRssMB)} | ${row.ok ? "yes" : "NO"} | ${row.met ? "yes" : "NO"} | ${cell(row.note)} |`,
	),
];
process.stdout.write(`${lines.join("\n")}\n`);
