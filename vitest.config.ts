import { availableParallelism } from "node:os";
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
		// Tests spawn real processes and wait on them: two workers computed about half of the time
		// (645 s of CPU over a 625 s run on two cores; BENCHMARKS.md, "The suite's time"), so twice as
		// many workers as cores fill the cores. At most 4, the most that was measured.
		pool: "forks",
		maxWorkers: Math.min(4, 2 * availableParallelism()),
		// The longest files first, so that no long file starts last (see longest-first.ts).
		sequence: { sequencer: LongestFirst },
	},
});
