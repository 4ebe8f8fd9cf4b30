import { mkdir, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ToolError } from "../../src/engine/errors.js";
import { type BashToolDetails, createBashTool } from "../../src/tools/bash.js";
import { createGrepTool } from "../../src/tools/grep.js";
import { importantLinesOfFile } from "../../src/workspace/output/scan-output-file.js";
import type { BenchCase, BenchContext, BenchOutcome } from "../types.js";

// The baseline runs the same rg binary the tool uses (there is no system rg on every machine).
const { rgPath } = (await import("@vscode/ripgrep")) as { rgPath: string };
const rg = `'${rgPath.replace(/'/g, "'\\''")}'`;

/** About 1 GB of build output with an error before it and a test summary after it. */
const BUILD_OUTPUT =
	"{ echo 'src/a.ts(3,5): error TS2322: early failure'; yes 'compiling module of the project' | head -c 1G; echo 'Tests: 1 failed, 41 passed'; }";
/** About 1 GB where every line is a warning: the worst case of the semantic scan's prefilter. */
const WARNINGS_OUTPUT = "yes 'warning: deprecated call in module' | head -c 1G";

async function runBash(cwd: string, command: string) {
	const tool = createBashTool(cwd);
	try {
		const result = await tool.execute("bench", { command, timeout: 600 }, undefined);
		const first = result.content[0];
		return { text: first?.type === "text" ? first.text : "", details: result.details, error: false };
	} catch (error) {
		if (!(error instanceof ToolError)) throw error;
		return { text: error.message, details: error.details as BashToolDetails | undefined, error: true };
	}
}

/** Runs `command` through the bash tool; checks the semantic tail and times the scan part alone (untimed, in the note). */
async function semanticTailCase(context: BenchContext, command: string, expect: (text: string) => boolean) {
	const started = performance.now();
	const { text, details, error } = await runBash(context.dataDir, command);
	const ms = performance.now() - started;
	const path = details?.fullOutputPath;
	let scanMs = Number.NaN;
	if (path) {
		const size = (await stat(path)).size;
		const scanStarted = performance.now();
		await importantLinesOfFile(path, size);
		scanMs = performance.now() - scanStarted;
		await rm(path, { force: true });
	}
	const truncation = details?.truncation;
	const ok =
		!error && truncation?.truncated === true && (truncation.originalBytes ?? 0) >= 2 ** 30 && expect(text) && !!path;
	return {
		ok,
		ms,
		note: `${Buffer.byteLength(text)} bytes shown; the semantic scan alone ${scanMs.toFixed(0)} ms`,
	};
}

const TREE = "grep-tree";
const FOLDERS = 40;
const FILES_PER_FOLDER = 50;
const LINES_PER_FILE = 100;
const MATCHES = FOLDERS * FILES_PER_FOLDER * LINES_PER_FILE;

/** 2,000 files of 100 lines, every line a `TODO` (200,000 matches): a search whose result is mostly cut. */
async function makeGrepTree({ dataDir }: BenchContext): Promise<void> {
	const marker = join(dataDir, TREE, "done");
	if (await stat(marker).catch(() => undefined)) return;
	for (let folder = 0; folder < FOLDERS; folder++) {
		const folderPath = join(dataDir, TREE, `pkg-${String(folder).padStart(2, "0")}`);
		await mkdir(folderPath, { recursive: true });
		const writes: Promise<void>[] = [];
		for (let file = 0; file < FILES_PER_FOLDER; file++) {
			const lines = Array.from(
				{ length: LINES_PER_FILE },
				(_, line) => `export function handler${line}(request) { return request.value * ${line}; } // TODO ${file % 7}`,
			);
			writes.push(writeFile(join(folderPath, `module-${String(file).padStart(2, "0")}.ts`), `${lines.join("\n")}\n`));
		}
		await Promise.all(writes);
	}
	await writeFile(marker, "");
}

function grepCutCase(backend: "ripgrep" | "walker", limit: number): BenchCase {
	return {
		group: "quality",
		name: `grep cut: 200,000 matches in 2,000 files, limit ${limit} (${backend})`,
		// The tool parses every match to count it (rg only prints them): the figure says what the cut costs.
		goal: limit <= 100 ? "report vs rg -n over every match; RSS growth ≤ 64 MB" : "report vs rg -n over every match",
		maxRssGrowthMB: limit <= 100 ? 64 : undefined,
		setup: makeGrepTree,
		toolbelt: async (context): Promise<BenchOutcome> => {
			const tool = createGrepTool(context.dataDir, { backend });
			const result = await tool.execute("bench", { pattern: "TODO", path: TREE, limit }, undefined);
			const text = result.content[0]?.type === "text" ? result.content[0].text : "";
			const cut = result.details?.cut;
			const ok =
				cut?.totalMatches === MATCHES &&
				cut.totalFiles === FOLDERS * FILES_PER_FOLDER &&
				cut.countsComplete &&
				Buffer.byteLength(text) <= 52 * 1024 &&
				text.includes("[For the rest: grep one file or folder by path");
			return { ok, note: `${cut?.shownMatches} shown, ${Buffer.byteLength(text)} bytes` };
		},
		baseline: `${rg} -n --hidden TODO ${TREE} > /dev/null`,
	};
}

/** Semantic truncation (bash's semantic tail, grep's cut) against the raw commands. */
export const cases: BenchCase[] = [
	{
		group: "quality",
		name: "bash semantic tail: 1 GB of build output, an error before it",
		goal: "≤ 1.3× the raw command | tail; RSS growth ≤ 96 MB",
		maxRatio: 1.3,
		maxRssGrowthMB: 96,
		repeat: 3,
		toolbelt: (context) =>
			semanticTailCase(
				context,
				BUILD_OUTPUT,
				(text) =>
					text.startsWith("[Kept from the cut part of the output") &&
					text.includes("error TS2322: early failure") &&
					text.includes("Tests: 1 failed, 41 passed"),
			),
		baseline: `${BUILD_OUTPUT} | tail -n 2000 > /dev/null`,
	},
	{
		group: "quality",
		name: "bash semantic tail: 1 GB of nothing but warnings",
		goal: "≤ 1.3× the raw command | tail; RSS growth ≤ 96 MB",
		maxRatio: 1.3,
		maxRssGrowthMB: 96,
		repeat: 3,
		toolbelt: (context) => semanticTailCase(context, WARNINGS_OUTPUT, (text) => text.includes("near-identical lines")),
		baseline: `${WARNINGS_OUTPUT} | tail -n 2000 > /dev/null`,
	},
	grepCutCase("ripgrep", 100),
	grepCutCase("walker", 100),
	grepCutCase("ripgrep", 5000),
];
