// Runs toolbelt's side of one case in a fresh process and prints one JSON line:
// { times: number[], rawTimes: number[], ok: boolean, note?: string, rssGrowthMB: number }.
import { join } from "node:path";
import { casesDir, dataDirOf } from "./load-cases.js";
import type { BenchCase } from "./types.js";

const [file, name, repeatText] = process.argv.slice(2);
const module = (await import(join(casesDir, file ?? ""))) as { cases: BenchCase[] };
const benchCase = module.cases.find((candidate) => candidate.name === name);
if (!benchCase) throw new Error(`no case ${name} in ${file}`);
const context = { dataDir: dataDirOf(benchCase.group) };
const repeat = Number(repeatText);

const gc = (globalThis as { gc?: () => void }).gc;
gc?.();
// Growth is measured from here: it includes the warm-up run, which does the same work as the timed ones.
const baselineRss = process.memoryUsage().rss;
await benchCase.beforeEach?.(context);
await benchCase.toolbelt(context); // warm-up: lazy module loading and JIT are not what we time
const times: number[] = [];
const rawTimes: number[] = [];
let ok = true;
let note: string | undefined;
for (let run = 0; run < repeat; run++) {
	await benchCase.beforeEach?.(context);
	const started = performance.now();
	const outcome = await benchCase.toolbelt(context);
	const elapsed = performance.now() - started;
	times.push(outcome.ms ?? elapsed);
	if (outcome.rawMs !== undefined) rawTimes.push(outcome.rawMs);
	ok &&= outcome.ok;
	note = outcome.note ?? note;
}
const rssGrowthMB = Math.max(0, process.resourceUsage().maxRSS * 1024 - baselineRss) / 2 ** 20;
process.stdout.write(`${JSON.stringify({ times, rawTimes, ok, note, rssGrowthMB })}\n`);
process.exit(0);
