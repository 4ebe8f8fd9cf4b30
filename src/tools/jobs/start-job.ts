import { ToolError } from "../../engine/errors.js";
import type { ToolSession } from "../../engine/session.js";
import type { ShellExecRequest, ShellOperations } from "../shell/exec-types.js";
import type { Job } from "./job.js";
import type { JobRegistry } from "./job-registry.js";
import { type JobDetails, reportJob } from "./job-report.js";

/** The longest a start waits for the first output, in ms (the bound: at most 1 s). */
export const START_SETTLE_MS = 1000;
/** After output arrived, this long without more ends the start's wait early, in ms. */
const quietMs = 200;

/** One `run_in_background` start. */
export interface StartJobInput {
	/** The session's jobs. */
	jobs: JobRegistry;
	/** The command as the model sent it. */
	command: string;
	/** Runs it. */
	operations: ShellOperations;
	/** The prepared request (its timeout applies to the job). */
	request: Omit<ShellExecRequest, "onData" | "openStdin" | "onStart" | "signal">;
	/** The budget of the first output shown. */
	budget: { maxBytes: number; maxLines: number };
	/** The longest wait for the first output, in ms. Default: 1000. */
	settleMs?: number;
	/** The session the call belongs to: the job is killed when it ends. Default: none (it ends with its registry). */
	session?: ToolSession;
}

/** Kills the job when the session ends, unless it ended before (then nothing stays registered). */
function endWithSession(jobs: JobRegistry, job: Job, session: ToolSession): void {
	const unregister = session.onEnd(async () => {
		if (job.running) await jobs.kill(job.id, "the end of its session");
	});
	void job.ended.then(unregister);
}

/** Waits for the first output (then a short quiet), the exit, or `settleMs`, whichever comes first. */
async function settle(job: Job, settleMs: number): Promise<void> {
	const deadline = Date.now() + settleMs;
	await job.waitForActivity(settleMs);
	while (job.running) {
		const remaining = deadline - Date.now();
		if (remaining <= 0) return;
		const before = job.totalBytes;
		await job.waitForActivity(Math.min(quietMs, remaining));
		if (job.running && job.totalBytes === before) return;
	}
}

/**
 * Starts a command as a background job of the session and returns at once (after at most a
 * short settle time) with its id, pid and first output; the command keeps running with a pipe
 * (or terminal) as stdin.
 */
export async function startBackgroundJob(input: StartJobInput): Promise<{ text: string; details: JobDetails }> {
	let job: Job;
	try {
		job = input.jobs.start({ command: input.command, operations: input.operations, request: input.request });
	} catch (error) {
		throw new ToolError((error as Error).message);
	}
	if (input.session) endWithSession(input.jobs, job, input.session);
	await settle(job, input.settleMs ?? START_SETTLE_MS);
	const status = job.status();
	if (status.state === "failed") {
		input.jobs.forget(job);
		throw new ToolError(`The background job could not start: ${status.error}`);
	}
	const report = await reportJob(input.jobs, job, input.budget);
	const pid = job.pid !== undefined ? ` (pid ${job.pid})` : "";
	const heading = `Started ${job.id}${pid} in the background. Output so far:`;
	return { text: `${heading}\n${report.text}`, details: report.details };
}
