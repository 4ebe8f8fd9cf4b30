import { createWriteStream } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createFindTool } from "../../src/tools/find.js";
import { createGrepTool } from "../../src/tools/grep.js";
import type { BenchCase, BenchContext, BenchOutcome } from "../types.js";

// The baseline runs the same rg binary the tool uses (there is no system rg on every machine).
const { rgPath } = (await import("@vscode/ripgrep")) as { rgPath: string };
const rg = `'${rgPath.replace(/'/g, "'\\''")}'`;

const TREE = "tree";
const FOLDERS = 200;
const FILES_PER_FOLDER = 100;
/** About 10 KB per file: 20,000 files, about 200 MB. */
const LINES_PER_FILE = 200;
const RARE = "ZEBRA_QUOKKA_7731";
const RARE_FILES = 37;
const BIG_FILE = "big.txt";
const BIG_LINES = 2_300_000;
const NEEDLE = "NEEDLE_IN_THE_HAYSTACK";
const MANIFEST = "manifest.json";
const VERSION = 1;

interface Manifest {
	version: number;
	tsFiles: number;
	rareMatches: number;
	regexMatches: number;
}

/** A deterministic generator, so every machine builds the same tree. */
function random(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state * 1664525 + 1013904223) >>> 0;
		return state / 2 ** 32;
	};
}

const WORDS = [
	"const",
	"value",
	"result",
	"items",
	"options",
	"export",
	"function",
	"return",
	"await",
	"config",
	"handler",
	"request",
	"response",
	"index",
	"length",
	"buffer",
	"string",
	"number",
	"import",
	"module",
];

function lineOf(next: () => number): string {
	const pick = () => WORDS[Math.floor(next() * WORDS.length)] as string;
	const indent = "\t".repeat(Math.floor(next() * 3));
	return `${indent}${pick()} ${pick()}_${Math.floor(next() * 1000)} = ${pick()}(${pick()}, ${Math.floor(next() * 100000)}); // ${pick()} ${pick()}`;
}

const EXTENSIONS = [".ts", ".ts", ".ts", ".ts", ".ts", ".ts", ".js", ".js", ".md", ".json"];

async function makeTree(dataDir: string): Promise<Manifest> {
	const next = random(42);
	// A pool of lines keeps generation fast; files differ by how they pick from it.
	const pool = Array.from({ length: 4096 }, () => lineOf(next));
	let tsFiles = 0;
	let rareMatches = 0;
	let regexMatches = 0;
	const total = FOLDERS * FILES_PER_FOLDER;
	const rareEvery = Math.floor(total / RARE_FILES);
	let fileIndex = 0;
	for (let folder = 0; folder < FOLDERS; folder++) {
		const folderPath = join(dataDir, TREE, `pkg-${String(folder).padStart(3, "0")}`, folder % 2 ? "src" : "lib");
		await mkdir(folderPath, { recursive: true });
		const writes: Promise<void>[] = [];
		for (let file = 0; file < FILES_PER_FOLDER; file++, fileIndex++) {
			const extension = EXTENSIONS[fileIndex % EXTENSIONS.length] as string;
			if (extension === ".ts") tsFiles++;
			const lines: string[] = [];
			for (let line = 0; line < LINES_PER_FILE; line++) lines.push(pool[Math.floor(next() * pool.length)] as string);
			if (fileIndex % rareEvery === 0 && rareMatches < RARE_FILES) {
				lines[LINES_PER_FILE >> 1] = `const marker = "${RARE}";`;
				rareMatches++;
			}
			if (fileIndex % 500 === 7) {
				lines[10] = `function rarelyCalledHandler${fileIndex}(event) {`;
				regexMatches++;
			}
			writes.push(
				writeFile(join(folderPath, `module-${String(file).padStart(3, "0")}${extension}`), `${lines.join("\n")}\n`),
			);
		}
		await Promise.all(writes);
	}
	return { version: VERSION, tsFiles, rareMatches, regexMatches };
}

/** 200 MB of numbered lines with one needle in the middle, written in large buffered writes. */
async function makeBigFile(dataDir: string): Promise<void> {
	const out = createWriteStream(join(dataDir, BIG_FILE));
	const filler = "the quick brown fox jumps over the lazy dog 0123456789 lorem ipsum dolor sit amet";
	let batch: string[] = [];
	for (let line = 1; line <= BIG_LINES; line++) {
		batch.push(line === BIG_LINES / 2 ? `${line} ${NEEDLE} here\n` : `${line} ${filler}\n`);
		if (batch.length === 20_000) {
			if (!out.write(batch.join(""))) await new Promise<void>((resolve) => out.once("drain", () => resolve()));
			batch = [];
		}
	}
	await new Promise<void>((resolve, reject) => {
		out.on("error", reject);
		out.end(batch.join(""), resolve);
	});
}

async function readManifest(dataDir: string): Promise<Manifest | undefined> {
	try {
		const manifest = JSON.parse(await readFile(join(dataDir, MANIFEST), "utf8")) as Manifest;
		return manifest.version === VERSION ? manifest : undefined;
	} catch {
		return undefined;
	}
}

let cachedManifest: Manifest | undefined;
async function manifestOf(dataDir: string): Promise<Manifest> {
	cachedManifest ??= await readManifest(dataDir);
	if (!cachedManifest) throw new Error("run the search setup first");
	return cachedManifest;
}

/** Generates the tree and the big file once; later runs reuse them. */
async function setup({ dataDir }: BenchContext): Promise<void> {
	if (await readManifest(dataDir)) return;
	const manifest = await makeTree(dataDir);
	await makeBigFile(dataDir);
	await writeFile(join(dataDir, MANIFEST), JSON.stringify(manifest));
}

type Backend = "ripgrep" | "walker";

async function grepCount(
	context: BenchContext,
	backend: Backend,
	args: { pattern: string; path: string; literal?: boolean; limit?: number; context?: number },
) {
	const tool = createGrepTool(context.dataDir, { backend });
	const result = await tool.execute("bench", args, undefined);
	const text = result.content[0]?.type === "text" ? result.content[0].text : "";
	return { details: result.details, text };
}

function literalCase(backend: Backend): BenchCase {
	return {
		group: "search",
		name: `grep literal over 20k files (${backend})`,
		goal: backend === "ripgrep" ? "≤ 1.15× rg -n --hidden" : "report",
		maxRatio: backend === "ripgrep" ? 1.15 : undefined,
		setup,
		toolbelt: async (context): Promise<BenchOutcome> => {
			const manifest = await manifestOf(context.dataDir);
			const { details } = await grepCount(context, backend, { pattern: RARE, path: TREE, literal: true });
			return {
				ok: details?.matchCount === manifest.rareMatches && details.matchLimitReached === undefined,
				note: `${details?.matchCount} matches`,
			};
		},
		baseline: `${rg} -n --hidden ${RARE} ${TREE}`,
	};
}

function regexCase(backend: Backend): BenchCase {
	const pattern = "rarely[A-Z][a-z]+Handler\\d+\\(";
	return {
		group: "search",
		name: `grep regex over 20k files (${backend})`,
		goal: backend === "ripgrep" ? "≤ 1.15× rg -n --hidden" : "report",
		maxRatio: backend === "ripgrep" ? 1.15 : undefined,
		setup,
		toolbelt: async (context): Promise<BenchOutcome> => {
			const manifest = await manifestOf(context.dataDir);
			const { details } = await grepCount(context, backend, { pattern, path: TREE });
			return {
				ok: details?.matchCount === manifest.regexMatches && details.matchLimitReached === undefined,
				note: `${details?.matchCount} matches`,
			};
		},
		baseline: `${rg} -n --hidden '${pattern}' ${TREE}`,
	};
}

function limitCase(backend: Backend): BenchCase {
	return {
		group: "search",
		name: `grep frequent pattern, 100-match limit (${backend})`,
		// The first wave's goal was 1.5×; the speed issue of the second wave asks for 1.3×.
		goal: backend === "ripgrep" ? "≤ 1.3× rg … piped to head -n 100" : "report",
		maxRatio: backend === "ripgrep" ? 1.3 : undefined,
		setup,
		toolbelt: async (context): Promise<BenchOutcome> => {
			const { details } = await grepCount(context, backend, { pattern: "const", path: TREE });
			return { ok: details?.matchCount === 100 && details.matchLimitReached === 100 };
		},
		baseline: `${rg} -n --hidden const ${TREE} | head -n 100`,
	};
}

function bigFileCase(backend: Backend): BenchCase {
	return {
		group: "search",
		name: `grep one match, context 2, 200 MB file (${backend})`,
		goal: backend === "ripgrep" ? "≤ 1.5× rg -C2, RSS growth < 32 MB" : "report",
		maxRatio: backend === "ripgrep" ? 1.5 : undefined,
		maxRssGrowthMB: backend === "ripgrep" ? 32 : undefined,
		repeat: 3,
		setup,
		toolbelt: async (context): Promise<BenchOutcome> => {
			const { text } = await grepCount(context, backend, { pattern: NEEDLE, path: BIG_FILE, context: 2 });
			const middle = BIG_LINES / 2;
			const lines = text.split("\n");
			return {
				ok: lines.length === 5 && lines[2] === `${BIG_FILE}:${middle}: ${middle} ${NEEDLE} here`,
			};
		},
		baseline: `${rg} -C2 ${NEEDLE} ${BIG_FILE}`,
	};
}

function findCase(backend: Backend): BenchCase {
	return {
		group: "search",
		name: `find **/*.ts over 20k files (${backend})`,
		goal: backend === "ripgrep" ? "≤ 1.3× rg --files -g '*.ts'" : "report",
		maxRatio: backend === "ripgrep" ? 1.3 : undefined,
		// About 30 ms a run, where this machine's noise is a few ms: more runs steady the median.
		repeat: 21,
		setup,
		toolbelt: async (context): Promise<BenchOutcome> => {
			const manifest = await manifestOf(context.dataDir);
			// A limit above the file count: the whole tree is listed and sorted, as rg lists it.
			const tool = createFindTool(context.dataDir, { backend });
			const result = await tool.execute("bench", { pattern: "**/*.ts", path: TREE, limit: 100_000 }, undefined);
			return {
				ok: result.details?.fileCount === manifest.tsFiles,
				note: `${result.details?.fileCount} files`,
			};
		},
		baseline: `${rg} --files -g '*.ts' ${TREE}`,
	};
}

/**
 * find against ripgrep doing the same work. `rg -g '*.ts'` whitelists what the glob matches, so
 * ripgrep checks no ignore rule for those files (and would list a gitignored `x.gen.ts`); find
 * keeps ignored files out, which costs ripgrep one ignore check per file (the repository's
 * .gitignore above the tree applies). This row compares like with like.
 */
function findSameRulesCase(): BenchCase {
	return {
		group: "search",
		name: "find **/*.ts over 20k files, vs rg with the same ignore rules (ripgrep)",
		goal: "≤ 1.3× rg --files --type (same rules)",
		maxRatio: 1.3,
		repeat: 21,
		setup,
		toolbelt: async (context): Promise<BenchOutcome> => {
			const manifest = await manifestOf(context.dataDir);
			const tool = createFindTool(context.dataDir, { backend: "ripgrep" });
			const result = await tool.execute("bench", { pattern: "**/*.ts", path: TREE, limit: 100_000 }, undefined);
			return { ok: result.details?.fileCount === manifest.tsFiles, note: `${result.details?.fileCount} files` };
		},
		baseline: `${rg} --files --hidden -g '!.git' --no-require-git --type-add 'ts:*.ts' -t ts ${TREE}`,
	};
}

/**
 * find as a model calls it (no limit given: the default 1,000) against the raw listing cut to as
 * many names. find lists in path order (ripgrep `--sort path`, one thread) and stops past the
 * first 1,000, so it gives the same files on every call, where `head` keeps whichever names
 * ripgrep's parallel walk printed first.
 */
function findDefaultLimitCase(): BenchCase {
	return {
		group: "search",
		name: "find **/*.ts over 20k files, default limit (ripgrep)",
		goal: "≤ 1.5× rg --files -g '*.ts' | head -n 1000",
		maxRatio: 1.5,
		repeat: 21,
		setup,
		toolbelt: async (context): Promise<BenchOutcome> => {
			const tool = createFindTool(context.dataDir, { backend: "ripgrep" });
			const result = await tool.execute("bench", { pattern: "**/*.ts", path: TREE }, undefined);
			return { ok: result.details?.fileCount === 1000, note: `${result.details?.fileCount} files shown` };
		},
		baseline: `${rg} --files -g '*.ts' ${TREE} | head -n 1000`,
	};
}

/** grep and find against raw ripgrep on a generated tree of 20,000 files and a 200 MB file. */
export const cases: BenchCase[] = (["ripgrep", "walker"] as const).flatMap((backend) => [
	literalCase(backend),
	regexCase(backend),
	limitCase(backend),
	bigFileCase(backend),
	findCase(backend),
	...(backend === "ripgrep" ? [findSameRulesCase(), findDefaultLimitCase()] : []),
]);
