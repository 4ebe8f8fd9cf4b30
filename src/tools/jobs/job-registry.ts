import { formatDuration, monotonicMs } from "../../engine/index.js";
import { registerSessionCleanup } from "../../workspace/local/index.js";
import { Job, type JobSpec } from "./job.js";
import { describeStatus } from "./job-text.js";
import type { JobSummary } from "./types.js";

export type { JobSummary } from "./types.js";

/** Default most jobs a session holds at once (running, or ended and not yet reported). */
export const DEFAULT_MAX_JOBS = 16;
/** Default raw bytes of each job's output kept in memory (the rest is in its full-output file). */
export const DEFAULT_KEPT_OUTPUT_BYTES = 256 * 1024;

/** Options of `createJobRegistry`. */
export interface JobRegistryOptions {
	/** Most jobs held at once; a start beyond it is refused with the jobs to kill. Default: 16. */
	maxJobs?: number;
	/** Raw bytes of each job's output kept in memory; the rest goes to a full-output file. Default: 256 KB. */
	keptOutputBytes?: number;
}

/**
 * The background jobs of one session (an agent run, an interactive session, an MCP server's
 * lifetime, a tool set): bounded in number and kept output, and all killed by `dispose`, by
 * `disposeShellProcesses`, or when toolbelt exits.
 */
export class JobRegistry {
	/** Most jobs held at once. */
	readonly maxJobs: number;
	/** Raw bytes of each job's output kept in memory. */
	readonly keptOutputBytes: number;
	private readonly jobs = new Map<string, Job>();
	/** Ended jobs whose end was reported, with how they ended: their ids get a clear message. */
	private readonly reported = new Map<string, string>();
	private readonly changeListeners = new Set<() => void>();
	private nextNumber = 1;
	private unregister: (() => void) | undefined;

	constructor(options: JobRegistryOptions = {}) {
		this.maxJobs = Math.max(1, options.maxJobs ?? DEFAULT_MAX_JOBS);
		this.keptOutputBytes = Math.max(64 * 1024, options.keptOutputBytes ?? DEFAULT_KEPT_OUTPUT_BYTES);
	}

	/** Starts a job; throws, naming the jobs to kill, when the session holds `maxJobs` already. */
	start(spec: Omit<JobSpec, "id" | "keptBytes">): Job {
		if (this.jobs.size >= this.maxJobs) {
			const held = this.list()
				.map((job) => `${job.id} (${job.state}, ${job.command.slice(0, 60)})`)
				.join(", ");
			throw new Error(
				`Not started: this session already holds ${this.maxJobs} background jobs, the limit: ${held}. Kill the ones no longer needed with bash_kill (or read the ended ones with bash_output), then start it again.`,
			);
		}
		const job = new Job({ ...spec, id: `job-${this.nextNumber++}`, keptBytes: this.keptOutputBytes });
		this.jobs.set(job.id, job);
		this.unregister ??= registerSessionCleanup({ killNow: () => this.killNow(), dispose: () => this.dispose() });
		void job.ended.then(() => this.changed());
		this.changed();
		return job;
	}

	/** The job with `id` (also `3` or `"3"` for `job-3`); throws with the live ids when there is none. */
	get(id: string | number): Job {
		const key = normalizeJobId(id);
		const job = this.jobs.get(key);
		if (job) return job;
		const live =
			this.jobs.size === 0 ? "There are no background jobs now." : `Jobs now: ${[...this.jobs.keys()].join(", ")}.`;
		const ended = this.reported.get(key);
		if (ended !== undefined) {
			throw new Error(`Job ${key} has ended (${ended}) and its end was already reported; it is gone. ${live}`);
		}
		throw new Error(`There is no job ${String(id)}. ${live} Call bash_output without an id to list them.`);
	}

	/** Every job held, oldest first. */
	list(): JobSummary[] {
		const now = monotonicMs();
		return [...this.jobs.values()].map((job) => {
			const status = job.status();
			return {
				id: job.id,
				command: job.command,
				state: status.state,
				...(status.state === "exited" ? { exitCode: status.exitCode } : {}),
				...(job.pid !== undefined ? { pid: job.pid } : {}),
				ageMs: Math.round(now - job.startedAt),
				bytes: job.totalBytes,
				unreadBytes: job.totalBytes - job.readOffset,
			};
		});
	}

	/** How many jobs are running. */
	runningCount(): number {
		return [...this.jobs.values()].filter((job) => job.running).length;
	}

	/** Forgets an ended job whose end the model has now read; later ids get a clear message. */
	forget(job: Job): void {
		if (!this.jobs.delete(job.id)) return;
		this.reported.set(
			job.id,
			`${describeStatus(job.status())}, ${formatDuration(monotonicMs() - job.startedAt)} after it started`,
		);
		void job.discard().catch(() => {});
		this.changed();
	}

	/** Kills a job's whole tree and forgets it. */
	async kill(id: string | number, by = "bash_kill"): Promise<Job> {
		const job = this.get(id);
		await job.kill(by);
		this.forget(job);
		return job;
	}

	/** Calls `listener` whenever a job starts, ends or is forgotten; returns the unsubscribe. */
	onChange(listener: () => void): () => void {
		this.changeListeners.add(listener);
		return () => this.changeListeners.delete(listener);
	}

	/**
	 * Ends the session: kills every job's tree and deletes their output files. Idempotent; a job
	 * started afterwards begins a new session.
	 */
	async dispose(): Promise<void> {
		const jobs = [...this.jobs.values()];
		await Promise.all(jobs.map((job) => job.kill("the end of the session")));
		for (const job of jobs) this.forget(job);
		this.unregister?.();
		this.unregister = undefined;
	}

	private killNow(): void {
		for (const job of this.jobs.values()) job.killNow();
	}

	private changed(): void {
		for (const listener of this.changeListeners) listener();
	}
}

/** `3`, `"3"` and `"job-3"` all name job-3. */
export function normalizeJobId(id: string | number): string {
	const text = String(id).trim();
	return /^\d+$/.test(text) ? `job-${text}` : text;
}

/** A registry for one session's background jobs. */
export function createJobRegistry(options: JobRegistryOptions = {}): JobRegistry {
	return new JobRegistry(options);
}
