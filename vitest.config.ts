import { readFileSync } from "node:fs";
import { configDefaults, defineConfig } from "vitest/config";
import { diagnosticsOffEnv } from "./test/cli/helpers/diagnostics-off.js";
import { LongestFirst } from "./test/schedule/longest-first.js";

/** Test files that change the process (an environment variable, the working directory…), with why. */
const ownWorker = Object.keys(
	JSON.parse(readFileSync(new URL("./test/schedule/own-worker.json", import.meta.url), "utf8")) as Record<
		string,
		string
	>,
);

// A machine-wide extra CA bundle is parsed by every Node 20 start that inherits it (~50 ms of CPU
// each for the system's bundle): the workers, and the Node programs tests start with the workers'
// environment. No test reaches a server that needs it (the package test installs offline); tests
// about certificates set their own.
delete process.env.NODE_EXTRA_CA_CERTS;

export default defineConfig({
	test: {
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
		// Each project names its files: `extends: true` would add an `include` here to the projects' own.
		projects: [
			{
				// Most files leave the process as they found it: they share a worker, which keeps the
				// modules loaded from one file to the next (loading them again for each file was about a
				// fifth of the suite's CPU). `npm run structure` (scripts/shared-worker-tests.mjs) keeps
				// process-wide state out of them; `vi.stubEnv` and `vi.stubGlobal` end with their file.
				extends: true,
				test: {
					name: "shared",
					isolate: false,
					setupFiles: ["test/schedule/signal-guard.ts", "test/schedule/restore-stubs.ts"],
					include: ["test/**/*.test.ts"],
					exclude: [...configDefaults.exclude, ...ownWorker],
				},
			},
			{
				extends: true,
				test: { name: "own-worker", include: ownWorker, setupFiles: ["test/schedule/signal-guard.ts"] },
			},
		],
	},
});
