import type { TruncationResult } from "../../engine/index.js";
import type { EscapedProcess, ShellNetworkConnection, ShellOperations } from "../../workspace/index.js";
import type { JobRegistry } from "../jobs/job-registry.js";
import type { JobDetails } from "../jobs/types.js";

export type {
	EscapedProcess,
	ShellExecRequest,
	ShellExecResult,
	ShellFileExecResult,
	ShellInput,
	ShellNetworkConnection,
	ShellOperations,
	ShellPrepareMoment,
	ShellRunHandle,
} from "../../workspace/index.js";

/** Options shared by the bash and powershell tools. */
export interface ShellToolOptions {
	/** Timeout when the model gives none, in seconds. Default: 120. */
	defaultTimeoutSeconds?: number;
	/** Largest timeout the model may ask for, in seconds (larger requests are lowered to it). Default: 600. */
	maxTimeoutSeconds?: number;
	/** Most lines of output the model sees (the tail is kept). Default: 2000. */
	maxLines?: number;
	/** Most bytes of output the model sees (the tail is kept). Default: 50 KB. */
	maxBytes?: number;
	/** Extra environment variables for every command, on top of the process environment. Default: none. */
	env?: Record<string, string>;
	/**
	 * Variables of this process's environment that commands get although their names mark a secret
	 * (`OPENAI_API_KEY`, `GITHUB_TOKEN`, …; see `isSecretVariableName`), e.g. `["NPM_TOKEN"]`.
	 * Default: none — commands get no such variable.
	 */
	passEnvironment?: readonly string[];
	/** The shell executable to use instead of the automatic choice. Default: automatic. */
	shellPath?: string;
	/** Text prepended to every command, on its own line (e.g. `set -euo pipefail`, `source .venv/bin/activate`). Default: none. */
	commandPrefix?: string;
	/** Process execution; replace it to run commands elsewhere (SSH, container). Default: local processes. */
	operations?: ShellOperations;
	/**
	 * The session's background jobs (`run_in_background`), shared with bash_output and bash_kill.
	 * Default: none — the tool sets of `src/tools/index.ts` pass one per tool set.
	 */
	jobs?: JobRegistry;
	/** When the shell its first command runs in is started: ms after the tool's creation (see `ToolsOptions.prepareAfterMs`). Default: 0. */
	prepareAfterMs?: number;
}

/** Truncation facts of a shell result: how much output there was and how much the model sees. */
export interface ShellTruncation extends Omit<TruncationResult, "content"> {
	/** True when a single line longer than the byte budget was cut with a marker. */
	lineCut: boolean;
}

/** Structured details of a bash or powershell result. */
export interface ShellToolDetails {
	/** The shell's exit code, or null when it was killed by a signal. */
	exitCode: number | null;
	/** The signal that killed the shell, or null. */
	signal: string | null;
	/** Wall-clock duration, in milliseconds. */
	durationMs: number;
	/** True when the command hit its timeout and was killed. */
	timedOut: boolean;
	/** True when the user cancelled the command (abort). */
	cancelled: boolean;
	/** The timeout that applied, in seconds. */
	timeoutSeconds: number;
	/** Truncation facts: total lines and bytes, and what the model sees. */
	truncation: ShellTruncation;
	/** Path of a temp file holding the complete output, when the model sees only part of it. Removed when toolbelt exits. */
	fullOutputPath?: string;
	/** Processes the command left running in the background; killed when toolbelt exits or the tools are disposed. */
	backgroundPids: number[];
	/**
	 * Processes born during the call that escaped tracking and that toolbelt cannot stop (only where
	 * no cgroup holds commands, see the README). Absent when there are none.
	 */
	escapedProcesses?: EscapedProcess[];
	/** Process id of the shell (also its process group id on POSIX), when known. */
	pid?: number;
	/** The background job's id, when the command was started with `run_in_background`. */
	jobId?: string;
	/** The background job's state and first output facts, with `run_in_background`. */
	job?: JobDetails;
	/** With the sandbox's network policy: every connection the call made or was refused (the audit). */
	network?: ShellNetworkConnection[];
}
