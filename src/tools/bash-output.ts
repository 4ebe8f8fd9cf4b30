import { setTimeout as delay } from "node:timers/promises";
import type { Static } from "typebox";
import type { AgentTool, ToolResult } from "../engine/index.js";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, ToolError, Type } from "../engine/index.js";
import type { JobRegistry, JobSummary } from "./jobs/job-registry.js";
import { type JobDetails, reportJob } from "./jobs/job-report.js";
import { formatJobList } from "./jobs/job-text.js";
import { toolEntry, toolSeams } from "./registry/tool-entry.js";
import { defineTool, toolFrom } from "./tool-definition.js";

const DESCRIPTION = `Reads a background job's new output (since the last read) and its state: running, exited with a code, or killed.
Give \`id\` (from bash with run_in_background). \`input\` is written to the job's stdin first (include "\\n" to end a line). \`wait_seconds\` waits up to that long for new output or the exit. \`filter\` keeps only lines matching a regular expression.
Output beyond 2000 lines or 50 KB keeps the last part and says where the full output is. Without \`id\`, lists the jobs.
A job whose end has been reported is gone; kill jobs you no longer need with bash_kill.`;

/** Longest wait the model may ask for, in seconds (a longer one is lowered). */
export const MAX_JOB_WAIT_SECONDS = 600;
/** After new output arrived during a wait, this long without more ends the wait, in ms. */
const gatherMs = 100;

/** Arguments of the bash_output tool. */
export const bashOutputSchema = Type.Object({
	id: Type.Optional(Type.String({ description: "The job id, e.g. job-1. Omit to list the jobs." })),
	wait_seconds: Type.Optional(
		Type.Number({ description: "Wait up to this many seconds for new output or the exit. Default 0.", minimum: 0 }),
	),
	input: Type.Optional(Type.String({ description: "Text written to the job's stdin before reading." })),
	filter: Type.Optional(Type.String({ description: "A regular expression: only matching lines are shown." })),
});

/** Arguments of the bash_output tool, as the model sends them. */
export type BashOutputToolInput = Static<typeof bashOutputSchema>;
/** The runnable bash_output tool. */
export type BashOutputTool = AgentTool<typeof bashOutputSchema, BashOutputToolDetails>;

/** Structured details of a bash_output result: one job's report, or the listing. */
export type BashOutputToolDetails = JobDetails | { jobs: JobSummary[] };

/** Options of the bash_output and bash_kill tools. */
export interface JobToolOptions {
	/** The session's background jobs. Default: none — the tool sets of `src/tools/index.ts` pass one. */
	jobs?: JobRegistry;
	/** Most bytes of output the model sees (the tail is kept). Default: 50 KB. */
	maxBytes?: number;
	/** Most lines of output the model sees (the tail is kept). Default: 2000. */
	maxLines?: number;
}

/** The session's jobs, or a clear error when the tool was made without one. */
export function jobsOf(options: JobToolOptions): JobRegistry {
	if (options.jobs) return options.jobs;
	throw new ToolError(
		"This tool was created without a session's job registry (the `jobs` option), so there are no background jobs.",
	);
}

/** The model's regex, or an error saying what is wrong with it. */
function compileFilter(filter: string | undefined): RegExp | undefined {
	if (filter === undefined || filter === "") return undefined;
	try {
		return new RegExp(filter);
	} catch (error) {
		throw new ToolError(
			`The filter is not a valid regular expression: ${(error as Error).message}. Fix it, or omit filter.`,
		);
	}
}

/** Repairs `id` sent as a number and the wait sent as `wait`/`timeout`. */
export function prepareJobArguments(args: unknown): unknown {
	if (typeof args !== "object" || args === null || Array.isArray(args)) return args;
	const repaired: Record<string, unknown> = {};
	for (const [field, value] of Object.entries(args)) if (value !== null) repaired[field] = value;
	for (const alias of ["job_id", "bash_id", "shell_id", "jobId"]) {
		if (repaired.id === undefined && repaired[alias] !== undefined) repaired.id = repaired[alias];
		delete repaired[alias];
	}
	if (typeof repaired.id === "number") repaired.id = String(repaired.id);
	if (repaired.wait_seconds === undefined && typeof repaired.wait === "number") repaired.wait_seconds = repaired.wait;
	delete repaired.wait;
	return repaired;
}

// A barrier like the shell tools it serves. Reading destroys nothing, but its input goes to a
// running command, which may do anything.
/** The bash_output tool's definition, as the model sees it. */
export const createBashOutputToolDefinition = defineTool(
	{
		name: "bash_output",
		title: "Read a background job",
		effect: "runs",
		hints: { destructiveHint: false },
	},
	bashOutputSchema,
	DESCRIPTION,
);

async function readJob(
	options: JobToolOptions,
	args: BashOutputToolInput & { id: string },
	signal: AbortSignal | undefined,
): Promise<ToolResult<BashOutputToolDetails>> {
	const jobs = jobsOf(options);
	const filter = compileFilter(args.filter);
	let job: ReturnType<JobRegistry["get"]>;
	try {
		job = jobs.get(args.id);
		if (args.input !== undefined) await job.send(args.input);
	} catch (error) {
		throw new ToolError((error as Error).message);
	}
	const waitMs = Math.min(args.wait_seconds ?? 0, MAX_JOB_WAIT_SECONDS) * 1000;
	if (waitMs > 0 && job.running && job.totalBytes === job.readOffset) {
		// A cancel of this call ends only the wait: the job keeps running.
		await job.waitForActivity(waitMs, signal);
		if (job.running && !signal?.aborted) await delay(gatherMs);
	} else if (args.input !== undefined && job.running) {
		// Give the job a moment to answer the input.
		await job.waitForActivity(gatherMs * 5, signal);
		if (job.running && !signal?.aborted) await delay(gatherMs);
	}
	const budget = { maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES, maxLines: options.maxLines ?? DEFAULT_MAX_LINES };
	const report = await reportJob(jobs, job, budget, filter);
	return { content: [{ type: "text", text: report.text }], details: report.details };
}

/** The bash_output tool: reads background jobs, writes to their stdin, lists them. */
export function createBashOutputTool(cwd: string, options: JobToolOptions = {}): BashOutputTool {
	return toolFrom(createBashOutputToolDefinition(cwd, options), {
		prepareArguments: prepareJobArguments,
		// Reading is harmless; writing to a job's stdin may make it do anything.
		target: (args) => (args.input !== undefined ? { access: "execute", command: args.input } : { access: "read" }),
		execute: async (_toolCallId, args, signal) => {
			if (args.id === undefined || args.id === "") {
				const list = jobsOf(options).list();
				return { content: [{ type: "text", text: formatJobList(list) }], details: { jobs: list } };
			}
			return readJob(options, { ...args, id: args.id }, signal);
		},
	});
}

/** The registry's entry of bash_output (see `ToolEntry`). */
export const bashOutputToolEntry = toolEntry({
	name: "bash_output",
	definition: createBashOutputToolDefinition,
	tool: createBashOutputTool,
	seam: toolSeams.none,
	groups: ["jobs"],
});
