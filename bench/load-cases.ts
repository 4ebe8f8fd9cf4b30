import { readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BenchCase } from "./types.js";

/** Folder of the case modules: each `bench/cases/<group>.ts` exports `cases: BenchCase[]`. */
export const casesDir = fileURLToPath(new URL("./cases/", import.meta.url));

/**
 * Data of every group lives under the system temp dir, outside any repository: a tree nested in an
 * ignored folder of this repository would make ripgrep check every file against the repository's
 * .gitignore, a cost no real search from a project's root pays. `TOOLBELT_BENCH_DIR` overrides it.
 */
export const benchRoot = process.env.TOOLBELT_BENCH_DIR ?? join(tmpdir(), "toolbelt-bench");

/** Loads every case module, in file-name order. */
export async function loadCases(): Promise<{ file: string; benchCase: BenchCase }[]> {
	const files = (await readdir(casesDir)).filter((file) => file.endsWith(".ts")).sort();
	const all: { file: string; benchCase: BenchCase }[] = [];
	for (const file of files) {
		const module = (await import(join(casesDir, file))) as { cases?: BenchCase[] };
		for (const benchCase of module.cases ?? []) all.push({ file, benchCase });
	}
	return all;
}

/** The data directory of a group. */
export function dataDirOf(group: string): string {
	return join(benchRoot, group);
}
