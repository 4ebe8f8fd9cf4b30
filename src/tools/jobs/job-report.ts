import { formatSize } from "../../engine/index.js";
import type { TailBudget } from "../../workspace/index.js";
import type { Job } from "./job.js";
import type { JobRegistry } from "./job-registry.js";
import { describeStatus, renderUnread } from "./job-text.js";
import type { JobDetails, JobStatus } from "./types.js";

export type { JobDetails } from "./types.js";

/**
 * Reads a job's new output (moving its read offset) and puts it together with its state, as the
 * model reads it. An ended job whose output is all read is forgotten by the registry: its end is
 * reported exactly once.
 */
export async function reportJob(
	registry: JobRegistry,
	job: Job,
	budget: TailBudget,
	filter?: RegExp,
): Promise<{ text: string; details: JobDetails }> {
	// The state is taken before the read: an ended job's output is complete, so what is read now
	// is all of it, and its end is reported with it.
	const status = job.status();
	const read = renderUnread(job.unread(), budget, filter);
	job.readOffset += read.consumedBytes;
	const fullOutputPath = read.truncated ? await job.fullOutputPath() : undefined;
	const parts: string[] = [];
	const body = read.text.endsWith("\n") ? read.text.slice(0, -1) : read.text;
	parts.push(body === "" ? "(no new output)" : body);
	if (read.truncated) {
		const where = fullOutputPath ? ` Full output: ${fullOutputPath}` : "";
		parts.push(`[${formatSize(read.omittedBytes)} of the new output not shown (only the last part fits).${where}]`);
	}
	if (filter !== undefined && read.filteredLines > 0) {
		parts.push(`[${read.filteredLines} line${read.filteredLines === 1 ? "" : "s"} not matching the filter left out]`);
	}
	parts.push(stateLine(job, status));
	if (status.state !== "running") registry.forget(job);
	return {
		text: parts.join("\n\n"),
		details: {
			jobId: job.id,
			...(job.pid !== undefined ? { pid: job.pid } : {}),
			status,
			newBytes: read.consumedBytes,
			omittedBytes: read.omittedBytes,
			...(fullOutputPath ? { fullOutputPath } : {}),
		},
	};
}

function stateLine(job: Job, status: JobStatus): string {
	const pid = job.pid !== undefined ? `, pid ${job.pid}` : "";
	if (status.state === "running") {
		return `[Job ${job.id} is running${pid}. Read more with bash_output { id: "${job.id}" }; stop it with bash_kill when it is no longer needed.]`;
	}
	return `[Job ${job.id} ${describeStatus(status)}. This is its last report; the id is now gone.]`;
}
