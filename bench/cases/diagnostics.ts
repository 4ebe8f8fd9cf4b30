// Language-server diagnostics (issue 28): the time from a written change to its diagnostics with a
// warm server (TypeScript through typescript-language-server, Python through pyright), and a
// server's first start (start, initialize, the project's first check). Alternate changes add and
// remove one type error, so each check has an answer to wait for. No raw command does this work:
// the goals are absolute (the budget a change waits is 1.5 s).
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createDiagnosticsSession, type DiagnosticsSession } from "../../src/diagnostics/index.js";
import type { BenchCase, BenchContext } from "../types.js";

interface Language {
	file: string;
	clean: string;
	broken: string;
}

const TYPESCRIPT: Language = {
	file: "app.ts",
	clean:
		"export function total(prices: number[]): number {\n\treturn prices.reduce((sum, price) => sum + price, 0);\n}\n",
	broken:
		'export function total(prices: number[]): number {\n\tconst label: number = "sum";\n\treturn prices.reduce((sum, price) => sum + price, label);\n}\n',
};

const PYTHON: Language = {
	file: "app.py",
	clean: "def total(prices: list[float]) -> float:\n    return sum(prices)\n",
	broken: 'def total(prices: list[float]) -> float:\n    label: int = "sum"\n    return sum(prices) + label\n',
};

// The budget is generous so a busy machine measures a late answer rather than "pending".
const BUDGET_MS = 120_000;

async function project(context: BenchContext, language: Language, folder: string): Promise<string> {
	const root = join(context.dataDir, folder);
	await mkdir(root, { recursive: true });
	await writeFile(join(root, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true, noEmit: true } }));
	await writeFile(join(root, language.file), language.clean);
	return root;
}

function warmCase(language: Language, name: string): BenchCase {
	let session: DiagnosticsSession | undefined;
	let root = "";
	let broken = false;
	return {
		group: "diagnostics",
		name: `change → diagnostics, warm ${name} server`,
		goal: "≤ 1.5 s (the budget)",
		maxMs: 1500,
		repeat: 10,
		async toolbelt(context) {
			if (!session) {
				root = await project(context, language, `warm-${name}`);
				session = createDiagnosticsSession({ root, budgetMs: BUDGET_MS });
				// Warm: the server started and the file checked once, outside the clock.
				const path = join(root, language.file);
				await session.afterChange([{ path, display: language.file, before: language.clean, after: language.broken }]);
				await session.afterChange([{ path, display: language.file, before: language.broken, after: language.clean }]);
			}
			const [before, after] = broken ? [language.broken, language.clean] : [language.clean, language.broken];
			const path = join(root, language.file);
			const started = performance.now();
			const outcome = await session.afterChange([{ path, display: language.file, before, after }]);
			const ms = performance.now() - started;
			const report = outcome.files[0];
			const ok = report?.status === "checked" && report.introduced.length === (broken ? 0 : 1);
			broken = !broken;
			return { ok, ms, note: report?.status };
		},
	};
}

function firstStartCase(language: Language, name: string): BenchCase {
	let run = 0;
	return {
		group: "diagnostics",
		name: `first start of the ${name} server, to the first file's diagnostics`,
		goal: "reported (a first change says pending)",
		repeat: 2,
		async toolbelt(context) {
			const root = await project(context, language, `cold-${name}-${process.pid}-${run++}`);
			const path = join(root, language.file);
			const started = performance.now();
			const session = createDiagnosticsSession({ root, budgetMs: BUDGET_MS });
			try {
				const outcome = await session.afterChange([
					{ path, display: language.file, before: language.clean, after: language.broken },
				]);
				const ms = performance.now() - started;
				return { ok: outcome.files[0]?.status === "checked", ms };
			} finally {
				await session.dispose();
			}
		},
	};
}

export const cases: BenchCase[] = [
	warmCase(TYPESCRIPT, "TypeScript"),
	warmCase(PYTHON, "Python"),
	firstStartCase(TYPESCRIPT, "TypeScript"),
	firstStartCase(PYTHON, "Python"),
];
