/** Where a benchmark keeps its generated data (created once, reused across runs). */
export interface BenchContext {
	/** A directory private to the case's group, e.g. `.bench-tmp/files`. Generated data lives here. */
	dataDir: string;
}

/** What one run of toolbelt's side reports. */
export interface BenchOutcome {
	/** Whether the result was right (compared with what the raw command produces or an expectation). */
	ok: boolean;
	/** A short remark for the table, e.g. `truncated to 2000 lines`. */
	note?: string;
	/** Time measured by the case itself, in ms, when only part of the run should count. */
	ms?: number;
	/**
	 * The raw side's time, in ms, measured by the case itself taking turns with toolbelt's calls in
	 * its process (for a raw side that must be started the way toolbelt starts it, e.g. spawned from
	 * Node). Used as the baseline when the case names no `baseline` command.
	 */
	rawMs?: number;
}

/** One benchmark: toolbelt doing some work, side by side with the raw command doing the same. */
export interface BenchCase {
	/** Group name, e.g. `engine`, `files`, `shell`, `search`. Cases of a group share `dataDir`. */
	group: string;
	/** Case name, unique in its group. */
	name: string;
	/** The goal, as said in the issue, e.g. `≤ 2× sed`. Printed in the table. */
	goal: string;
	/** Largest acceptable ratio toolbelt / baseline, if the goal is a ratio. */
	maxRatio?: number;
	/** Largest acceptable toolbelt time in ms, if the goal is absolute. */
	maxMs?: number;
	/** Largest acceptable peak RSS growth of toolbelt's process during the runs, in MB. */
	maxRssGrowthMB?: number;
	/** How many timed runs of each side (median reported). Default: 5. */
	repeat?: number;
	/** Generates data under `dataDir`; runs once in the parent before either side. Make it idempotent. */
	setup?(context: BenchContext): Promise<void>;
	/** Runs before each timed toolbelt or baseline run (e.g. restore a file an edit changed). Not timed. */
	beforeEach?(context: BenchContext): Promise<void>;
	/** Toolbelt's side, run in a fresh Node process (after one warm-up run). */
	toolbelt(context: BenchContext): Promise<BenchOutcome>;
	/** The raw command (bash) doing the same work, run with `dataDir` as its working directory. */
	baseline?: string | ((context: BenchContext) => string);
}
