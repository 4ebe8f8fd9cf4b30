import type { ToolSession } from "../../engine/index.js";
import { monotonicMs, ToolError } from "../../engine/index.js";
import type { ShellExecRequest, ShellOperations } from "../../workspace/index.js";
import type { Job } from "./job.js";
import type { JobRegistry } from "./job-registry.js";
import { type JobDetails, reportJob } from "./job-report.js";

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
	/** The longest wait for the first output, in ms (a start answers within a second). Default: 1000. */
	settleMs?: number;
	/** After output arrived, this long without more ends the wait early, in ms. Default: 200. */
	quietMs?: number;
	/** The session the call belongs to: the job is killed when it ends. Default: none (it ends with its registry). */
	session?: ToolSession;
}

/** The defaults of the optional `StartJobInput` timings (documented on each field). */
const startJobDefaults = { settleMs: 1000, quietMs: 200 } satisfies Partial<StartJobInput>;

/**
 * The longest a start waits for the first output, in ms.
 * @deprecated The default of `StartJobInput.settleMs`, documented there; kept for existing imports.
 */
export const START_SETTLE_MS = startJobDefaults.settleMs;

/** Kills the job when the session ends, unless it ended before (then nothing stays registered). */
function endWithSession(jobs: JobRegistry, job: Job, session: ToolSession): void {
	const unregister = session.onEnd(async () => {
		if (job.running) await jobs.kill(job.id, "the end of its session");
	});
	void job.ended.then(unregister);
}

/** Waits for the first output (then a `quietMs` quiet), the exit, or `settleMs`, whichever comes first. */
async function settle(job: Job, settleMs: number, quietMs: number): Promise<void> {
	const deadline = monotonicMs() + settleMs;
	await job.waitForActivity(settleMs);
	while (job.running) {
		const remaining = deadline - monotonicMs();
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
	await settle(job, input.settleMs ?? startJobDefaults.settleMs, input.quietMs ?? startJobDefaults.quietMs);
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
