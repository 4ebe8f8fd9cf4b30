import { defineConfig } from "vitest/config";
import { diagnosticsOffEnv } from "./test/cli/helpers/diagnostics-off.js";
import { LongestFirst } from "./test/schedule/longest-first.js";

export default defineConfig({
	test: {
		include: ["test/**/*.test.ts"],
		globalSetup: ["test/global-setup.ts"],
		// CLI processes that inherit the test's environment get no language servers (see diagnostics-off.ts).
		env: { ...diagnosticsOffEnv },
		testTimeout: 20_000,
		hookTimeout: 20_000,
		// Tests spawn real processes and wait on them; on a quiet machine two workers computed about
		// half of the time. On this shared, loaded machine (where CI runs) the suite is CPU-bound: 2, 3
		// and 4 workers took the same wall time, and each file took longer with more (BENCHMARKS.md,
		// "The suite's workers"). The two tests four workers lost were product races, since fixed.
		pool: "forks",
		maxWorkers: 2,
		// The longest files first, so that no long file starts last (see longest-first.ts).
		sequence: { sequencer: LongestFirst },
	},
});
