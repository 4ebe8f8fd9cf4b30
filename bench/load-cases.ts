import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BenchCase } from "./types.js";

/** Folder of the case modules: each `bench/cases/<group>.ts` exports `cases: BenchCase[]`. */
export const casesDir = fileURLToPath(new URL("./cases/", import.meta.url));

/** Data of every group lives under the repository's `.bench-tmp/` (git-ignored). */
export const benchRoot = fileURLToPath(new URL("../.bench-tmp/", import.meta.url));

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
