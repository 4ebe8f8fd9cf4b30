import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** Seconds each test file took in a full run (durations.json; `update-durations.ts` writes it). */
const recorded = JSON.parse(readFileSync(new URL("./durations.json", import.meta.url), "utf8")) as Record<
	string,
	number
>;

/**
 * Hands the workers the longest test files first. The workers take files in this order, so a long
 * file that starts late keeps one worker busy after the others have run out (the consumer-install
 * test alone is a minute under load). Longest first leaves only short files for the end.
 *
 * A file's length is its duration in the last run on this machine (vitest's results cache), else
 * its duration in `durations.json`, which makes the first run of a fresh clone (CI) ordered too. A
 * file that failed last time runs first, as in vitest's own order; a file in neither record (a new
 * file) runs before the known ones, as vitest's own order also does, so it gets a duration.
 */
export class LongestFirst extends BaseSequencer {
	override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
		const root = this.ctx.config.root;
		const weigh = (file: TestSpecification) => {
			const path = relative(root, file.moduleId);
			const cached = this.ctx.cache.getFileTestResults(`${file.project.name}:${path}`);
			const seconds = cached ? cached.duration / 1000 : recorded[path];
			return { file, failed: cached?.failed === true, seconds: seconds ?? Number.POSITIVE_INFINITY };
		};
		return files
			.map(weigh)
			.sort((a, b) => Number(b.failed) - Number(a.failed) || b.seconds - a.seconds || 0)
			.map(({ file }) => file);
	}
}
