import { formatDuration, formatSize, truncateHead } from "../../engine/index.js";
import { completeUtf8Length, renderTail, sanitizeTerminalOutput, type TailBudget } from "../../workspace/index.js";
import type { JobStatus, JobSummary } from "./types.js";

/** How a job stands, in words: `running`, `exited with code 0`, `killed by SIGTERM (bash_kill)`. */
export function describeStatus(status: JobStatus): string {
	switch (status.state) {
		case "running":
			return "running";
		case "exited":
			return `exited with code ${status.exitCode}`;
		case "killed":
			return `killed by ${status.signal}${status.by !== undefined ? ` (${status.by})` : ""}`;
		case "failed":
			return `failed to start: ${status.error}`;
	}
}

/** The listing `bash_output` gives without an id. */
export function formatJobList(jobs: readonly JobSummary[]): string {
	if (jobs.length === 0) return "No background jobs. Start one with bash and run_in_background: true.";
	const lines = jobs.map((job) => {
		const state = job.state === "exited" ? `exited (code ${job.exitCode})` : job.state;
		const unread = job.unreadBytes > 0 ? `, ${formatSize(job.unreadBytes)} unread` : "";
		const pid = job.pid !== undefined ? `, pid ${job.pid}` : "";
		return `${job.id}  ${state}  ${formatDuration(job.ageMs)}  ${formatSize(job.bytes)} of output${unread}${pid}  $ ${job.command.split("\n", 1)[0]}`;
	});
	return `${jobs.length} background job${jobs.length === 1 ? "" : "s"}:\n${lines.join("\n")}`;
}

/** New output of a job as the model sees it. */
export interface RenderedRead {
	/** The cleaned text within the budget (filtered when a filter was given). */
	text: string;
	/** Raw bytes consumed by this read (the read offset moves by this much). */
	consumedBytes: number;
	/** Raw bytes of new output not shown: they left memory, did not fit the budget, or did not match. */
	omittedBytes: number;
	/** Lines of the kept new output dropped by the filter. */
	filteredLines: number;
	/** True when some of the new output is not shown for want of room. */
	truncated: boolean;
}

/**
 * Renders the unread bytes of a job: whole characters only (an incomplete one waits for the next
 * read), cleaned of terminal sequences, cut to the budget from the end; with `filter`, only the
 * matching lines are kept before the cut.
 */
export function renderUnread(
	unread: { bytes: Buffer; omittedBytes: number; startsMidStream: boolean },
	budget: TailBudget,
	filter?: RegExp,
): RenderedRead {
	const complete = unread.bytes.subarray(0, completeUtf8Length(unread.bytes));
	const consumedBytes = unread.omittedBytes + complete.length;
	if (filter === undefined) {
		const tail = renderTail(complete, unread.startsMidStream, budget);
		const shownBytes = tail.truncated || tail.cut ? Buffer.byteLength(tail.content) : complete.length;
		const truncated = tail.truncated || tail.cut || unread.omittedBytes > 0;
		return {
			text: tail.content,
			consumedBytes,
			omittedBytes: truncated ? Math.max(0, consumedBytes - shownBytes) : 0,
			filteredLines: 0,
			truncated,
		};
	}
	const lines = sanitizeTerminalOutput(complete.toString("utf8")).split("\n");
	if (lines.at(-1) === "") lines.pop();
	const kept = lines.filter((line) => filter.test(line));
	const cut = truncateHead(kept.length > 0 ? `${kept.join("\n")}\n` : "", budget);
	return {
		text: cut.content,
		consumedBytes,
		omittedBytes: unread.omittedBytes + (cut.truncated ? cut.originalBytes - cut.outputBytes : 0),
		filteredLines: lines.length - kept.length,
		truncated: cut.truncated || unread.omittedBytes > 0,
	};
}
