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
		// Tests spawn real processes and wait on them; two workers computed about half of the time
		// (BENCHMARKS.md, "The suite's time"), and four were faster, but with four a Node 24 run of
		// .ci/run lost two timing-sensitive tests (a command's output, a remote exit) that two keep.
		pool: "forks",
		maxWorkers: 2,
		// The longest files first, so that no long file starts last (see longest-first.ts).
		sequence: { sequencer: LongestFirst },
	},
});
