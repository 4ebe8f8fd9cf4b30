import { createWriteStream } from "node:fs";
import { mkdir, readdir, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createLsTool } from "../../src/tools/ls.js";
import { createReadTool } from "../../src/tools/read.js";
import type { BenchCase, BenchContext } from "../types.js";

const BIG_FILE = "big.txt";
const BIG_LINES = 2_250_000;
/** 7-digit number, space, 80 characters, newline: 89 bytes a line, 200 MB in all. */
const FILLER = "the quick brown fox jumps over the lazy dog, 0123456789, abcdefghijklmnopqrstuvwxy";
const BIG_SIZE = BIG_LINES * (7 + 1 + FILLER.length + 1);
const FOLDER = "folder-5000";
const FOLDER_ENTRIES = 5000;

async function exists(path: string, size?: number): Promise<boolean> {
	try {
		const info = await stat(path);
		return size === undefined || info.size === size;
	} catch {
		return false;
	}
}

/** The 200 MB file of 2.25 M numbered lines (`0000001 the quick…`), made once. */
async function makeBigFile({ dataDir }: BenchContext): Promise<void> {
	const path = join(dataDir, BIG_FILE);
	if (await exists(path, BIG_SIZE)) return;
	const out = createWriteStream(path);
	let batch: string[] = [];
	for (let line = 1; line <= BIG_LINES; line++) {
		batch.push(`${String(line).padStart(7, "0")} ${FILLER}\n`);
		if (batch.length === 10_000) {
			if (!out.write(batch.join(""))) await new Promise((resolve) => out.once("drain", () => resolve(undefined)));
			batch = [];
		}
	}
	await new Promise<void>((resolve, reject) => {
		out.on("error", reject);
		out.end(batch.join(""), resolve);
	});
}

/** A folder of 5,000 entries: files, every tenth a folder, some dotfiles. */
async function makeFolder({ dataDir }: BenchContext): Promise<void> {
	const folder = join(dataDir, FOLDER);
	await mkdir(folder, { recursive: true });
	if ((await readdir(folder)).length === FOLDER_ENTRIES) return;
	for (let index = 0; index < FOLDER_ENTRIES; index++) {
		const name = `${index % 50 === 0 ? "." : ""}entry-${String(index).padStart(5, "0")}`;
		if (index % 10 === 0) await mkdir(join(folder, name), { recursive: true });
		else await writeFile(join(folder, `${name}.txt`), "");
	}
}

function textOf(result: { content: { type: string; text?: string }[] }): string {
	return result.content.map((block) => block.text ?? "").join("");
}

/** read and ls against sed, head and ls on the same files. */
export const cases: BenchCase[] = [
	{
		group: "files",
		name: "read 100 lines at line 1,000,000 of 200 MB",
		goal: "≤ 2× sed, RSS growth < 32 MB",
		maxRatio: 2,
		maxRssGrowthMB: 32,
		setup: makeBigFile,
		toolbelt: async ({ dataDir }) => {
			const result = await createReadTool(dataDir).execute(
				"bench",
				{ path: BIG_FILE, offset: 1_000_000, limit: 100 },
				undefined,
			);
			const lines = textOf(result).split("\n");
			const ok =
				lines[0] === `1000000\t1000000 ${FILLER}` && lines[99] === `1000099\t1000099 ${FILLER}` && lines.length === 102;
			return { ok };
		},
		baseline: `sed -n '1000000,1000099p;1000099q' ${BIG_FILE}`,
	},
	{
		group: "files",
		name: "read first page of 200 MB",
		goal: "< 20 ms",
		maxMs: 20,
		setup: makeBigFile,
		toolbelt: async ({ dataDir }) => {
			const result = await createReadTool(dataDir).execute("bench", { path: BIG_FILE }, undefined);
			const text = textOf(result);
			return {
				ok: text.startsWith(`     1\t0000001 ${FILLER}\n`),
				note: text.slice(text.lastIndexOf("[Showing") + 1, text.indexOf(" of ")),
			};
		},
		baseline: `head -c 51200 ${BIG_FILE}`,
	},
	{
		group: "files",
		name: "ls of 5,000 entries",
		goal: "≤ 2× ls -1ap",
		maxRatio: 2,
		setup: makeFolder,
		toolbelt: async ({ dataDir }) => {
			// The whole listing (~80 KB) is the work compared with ls, so the 50 KB output budget is raised.
			const tool = createLsTool(dataDir, { maxBytes: 1024 * 1024 });
			const result = await tool.execute("bench", { path: FOLDER, limit: 10_000 }, undefined);
			const lines = textOf(result).split("\n");
			return {
				ok: lines.length === FOLDER_ENTRIES && result.details?.truncated === false,
				note: "limit 10000, maxBytes 1 MB",
			};
		},
		baseline: `ls -1ap ${FOLDER}`,
	},
];
