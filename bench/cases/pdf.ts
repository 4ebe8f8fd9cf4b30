import { spawnSync } from "node:child_process";
import { stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { makePdf } from "../../test/helpers/make-pdf.js";
import type { BenchCase, BenchContext } from "../types.js";

const PDF_FILE = "500-pages.pdf";
const PAGES = 500;
const LINES_PER_PAGE = 45;

function pageText(page: number): string {
	return Array.from(
		{ length: LINES_PER_PAGE },
		(_, line) => `Page ${page} line ${line + 1}: the quick brown fox jumps over the lazy dog 0123456789`,
	).join("\n");
}

/** A 500-page text PDF (45 lines a page, ~2 MB), made once by the test suite's generator. */
async function makeBigPdf({ dataDir }: BenchContext): Promise<void> {
	const path = join(dataDir, PDF_FILE);
	const pdf = makePdf(Array.from({ length: PAGES }, (_, index) => pageText(index + 1)));
	const existing = await stat(path).catch(() => undefined);
	if (existing?.size === pdf.length) return;
	await writeFile(path, pdf);
}

const distRead = fileURLToPath(new URL("../../dist/tools/read.js", import.meta.url));

// Run in a plain Node process on the built package: under the bench's tsx loader, pdf.js's 4 MB of
// modules are transformed and held with their source maps (+330 MB RSS), a cost no user pays.
const CHILD = `
const { createReadTool } = await import(process.env.READ_MODULE);
const read = createReadTool(process.env.DATA_DIR);
const text = (result) => result.content.map((block) => block.text ?? "").join("");
const baseRss = process.memoryUsage().rss;
const call = async () => {
	const started = performance.now();
	const result = await read.execute("bench", { path: process.env.PDF_FILE, offset: 100, limit: 1 }, undefined);
	return { ms: performance.now() - started, text: text(result) };
};
const cold = await call();
const warm = await call();
const peak = process.resourceUsage().maxRSS * 1024;
console.log(JSON.stringify({ coldMs: cold.ms, warmMs: warm.ms, text: warm.text, rssGrowthMB: (peak - baseRss) / 2 ** 20 }));
`;

interface ChildReport {
	coldMs: number;
	warmMs: number;
	text: string;
	rssGrowthMB: number;
}

function readInPlainNode(dataDir: string): ChildReport {
	const child = spawnSync(process.execPath, ["--input-type=module", "-e", CHILD], {
		encoding: "utf8",
		timeout: 60_000,
		env: { ...process.env, READ_MODULE: distRead, DATA_DIR: dataDir, PDF_FILE },
	});
	if (child.status !== 0) throw new Error(`pdf bench child failed: ${child.stderr}`);
	return JSON.parse(child.stdout.trim()) as ChildReport;
}

/**
 * read of one page deep in a long PDF: pdf.js parses the document, only that page's text is
 * extracted. Timed in a plain Node child (see CHILD): the warm read is the time reported, the cold
 * one (pdf.js loaded on first use) and the child's peak RSS growth are in the note.
 */
export const cases: BenchCase[] = [
	{
		group: "pdf",
		name: "read page 100 of a 500-page PDF",
		goal: "warm < 200 ms, cold < 2 s, RSS growth < 150 MB",
		maxMs: 200,
		repeat: 3,
		setup: makeBigPdf,
		toolbelt: async ({ dataDir }) => {
			const report = readInPlainNode(dataDir);
			const ok =
				report.text.includes("[Page 100 of 500]\nPage 100 line 1: the quick") &&
				report.text.includes(`Page 100 line ${LINES_PER_PAGE}:`) &&
				!report.text.includes("[Page 101 of 500]") &&
				report.coldMs < 2000 &&
				report.rssGrowthMB < 150;
			const note = `plain Node: cold ${report.coldMs.toFixed(0)} ms, peak RSS growth ${report.rssGrowthMB.toFixed(0)} MB`;
			return { ok, ms: report.warmMs, note };
		},
	},
];
