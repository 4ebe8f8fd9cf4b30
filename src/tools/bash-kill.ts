import type { Static } from "typebox";
import type { AgentTool } from "../engine/index.js";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, ToolError, Type } from "../engine/index.js";
import { type JobToolOptions, jobsOf, prepareJobArguments } from "./bash-output.js";
import { type JobDetails, reportJob } from "./jobs/job-report.js";
import { toolEntry, toolSeams } from "./registry/tool-entry.js";
import { defineTool, toolFrom } from "./tool-definition.js";

const DESCRIPTION = `Kills a background job (from bash with run_in_background) and every process it started, also ones that ignore SIGTERM or left its session.
Reports what was killed and the output not read yet. Kill a job as soon as it is no longer needed.`;

/** Arguments of the bash_kill tool. */
export const bashKillSchema = Type.Object({
	id: Type.String({ description: "The job id, e.g. job-1." }),
});

/** Arguments of the bash_kill tool, as the model sends them. */
export type BashKillToolInput = Static<typeof bashKillSchema>;
/** The runnable bash_kill tool. */
export type BashKillTool = AgentTool<typeof bashKillSchema, JobDetails>;

// It ends a job's processes; it starts nothing that could reach further.
/** The bash_kill tool's definition, as the model sees it. */
export const createBashKillToolDefinition = defineTool(
	{
		name: "bash_kill",
		title: "Kill a background job",
		effect: "runs",
		hints: { openWorldHint: false },
	},
	bashKillSchema,
	DESCRIPTION,
);

/** The bash_kill tool: ends a background job's whole process tree. */
export function createBashKillTool(cwd: string, options: JobToolOptions = {}): BashKillTool {
	return toolFrom(createBashKillToolDefinition(cwd, options), {
		prepareArguments: prepareJobArguments,
		target: ({ id }) => ({ access: "execute", command: `kill ${id}` }),
		execute: async (_toolCallId, { id }) => {
			const jobs = jobsOf(options);
			let job: ReturnType<typeof jobs.get>;
			try {
				job = jobs.get(id);
			} catch (error) {
				throw new ToolError((error as Error).message);
			}
			const wasRunning = job.running;
			const pids = job.livePids();
			await job.kill("bash_kill");
			const budget = {
				maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES,
				maxLines: options.maxLines ?? DEFAULT_MAX_LINES,
			};
			const report = await reportJob(jobs, job, budget);
			const killed =
				pids.length > 0
					? `Killed ${job.id}: pid${pids.length === 1 ? "" : "s"} ${pids.join(", ")} ended.`
					: wasRunning
						? `Killed ${job.id}.`
						: `${job.id} had already ended; nothing was left to kill.`;
			return {
				content: [{ type: "text", text: `${killed} Output not read before:\n${report.text}` }],
				details: { ...report.details, killedPids: pids },
			};
		},
	});
}

/** The registry's entry of bash_kill (see `ToolEntry`). */
export const bashKillToolEntry = toolEntry({
	name: "bash_kill",
	definition: createBashKillToolDefinition,
	tool: createBashKillTool,
	seam: toolSeams.none,
	groups: ["jobs"],
});
