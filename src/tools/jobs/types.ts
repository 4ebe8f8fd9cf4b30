// The jobs' plain data types, in a file that imports nothing, so the registry, the job texts, the
// reports and the shell tools' types can all name them without importing one another in a circle.

/** Where a job stands. */
export type JobStatus =
	| { state: "running" }
	| { state: "exited"; exitCode: number }
	| { state: "killed"; signal: string; by?: string }
	| { state: "failed"; error: string };

/** A job as a listing shows it. */
export interface JobSummary {
	/** The job's id. */
	id: string;
	/** The command. */
	command: string;
	/** `running`, `exited`, `killed` or `failed`. */
	state: string;
	/** Exit code, when it exited. */
	exitCode?: number;
	/** The shell's pid. */
	pid?: number;
	/** Milliseconds since it started. */
	ageMs: number;
	/** Bytes of output so far. */
	bytes: number;
	/** Bytes of output not read yet. */
	unreadBytes: number;
}

/** Structured details of a job result (bash with run_in_background, bash_output, bash_kill). */
export interface JobDetails {
	/** The job's id, e.g. `job-1`. */
	jobId: string;
	/** The shell's pid, when known. */
	pid?: number;
	/** Where the job stands after this call. */
	status: JobStatus;
	/** Raw bytes of new output this call covered. */
	newBytes: number;
	/** Raw bytes of that new output not shown (left memory, over the budget, or filtered out). */
	omittedBytes: number;
	/** The full-output file, when the output outgrew what is kept in memory. */
	fullOutputPath?: string;
	/** Pids that were killed (bash_kill only). */
	killedPids?: number[];
}
