import type { ToolExecuteContext, ToolResult, ToolSession, ToolUpdateCallback } from "../../engine/index.js";
import {
	createThrottle,
	DEFAULT_MAX_BYTES,
	DEFAULT_MAX_LINES,
	formatSize,
	monotonicMs,
	ToolError,
} from "../../engine/index.js";
import type {
	EscapedProcess,
	ShellExecRequest,
	ShellExecResult,
	ShellFileExecResult,
	ShellOperations,
} from "../../workspace/index.js";
import { localShellOperations } from "../../workspace/local/index.js";
import { startBackgroundJob } from "../jobs/start-job.js";
import { buildShellEnvironment } from "./environment.js";
import { FileShellOutput } from "./file-output.js";
import { type ShellOutput, ShellOutputBuffer } from "./output-buffer.js";
import type { ShellResolver } from "./resolve-shell.js";
import type { ShellToolDetails, ShellToolOptions } from "./types.js";

/** Default timeout of a command, in seconds. */
export const DEFAULT_TIMEOUT_SECONDS = 120;
/** Default largest timeout a model may ask for, in seconds. */
export const DEFAULT_MAX_TIMEOUT_SECONDS = 600;
/** Progress updates are sent at most this often, in ms. */
const updateIntervalMs = 100;

/** One call of a shell tool. */
export interface RunShellToolInput {
	/** The tool's working directory. */
	cwd: string;
	/** The tool's options. */
	options: ShellToolOptions;
	/** The command as the model sent it. */
	command: string;
	/** The timeout the model asked for, in seconds. Default: the tool's default timeout. */
	timeoutSeconds?: number;
	/** Aborts the command (kills its process tree). */
	signal?: AbortSignal;
	/** Receives the growing tail of the output. */
	onUpdate?: ToolUpdateCallback<ShellToolDetails>;
	/** Finds the shell and builds its arguments. */
	resolveShell: ShellResolver;
	/** Start it as a background job of the session and return at once. Default: false. */
	background?: boolean;
	/** Run it under a pseudo-terminal. Default: false. */
	tty?: boolean;
	/** The session the call belongs to: a background job is killed when it ends. Default: none (the job ends with its registry). */
	session?: ToolSession;
}

/** Node fires a longer timer at once (after 1 ms), so no timeout may exceed this (~24.8 days), in seconds. */
const longestTimerSeconds = 2_147_483.647;

function effectiveTimeout(requested: number | undefined, options: ShellToolOptions): number {
	const maximum = options.maxTimeoutSeconds ?? DEFAULT_MAX_TIMEOUT_SECONDS;
	const chosen = requested ?? options.defaultTimeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
	return Math.min(Math.max(chosen, 0.001), maximum, longestTimerSeconds);
}

function emptyDetails(timeoutSeconds: number, startedAt: number): ShellToolDetails {
	return {
		exitCode: null,
		signal: null,
		durationMs: Math.round(monotonicMs() - startedAt),
		timedOut: false,
		cancelled: false,
		timeoutSeconds,
		truncation: {
			truncated: false,
			truncatedBy: null,
			originalLines: 0,
			originalBytes: 0,
			outputLines: 0,
			outputBytes: 0,
			partialLine: false,
			lineCut: false,
		},
		backgroundPids: [],
	};
}

function cancelledMessage(): string {
	return "Command cancelled by the user. Do not run it again unless the user asks for it.";
}

/** The notice about processes toolbelt lost track of and cannot stop. */
function escapedNotice(escaped: readonly EscapedProcess[]): string {
	const list = escaped.map(({ pid, command }) => `pid ${pid} (${command || "unknown command"})`).join(", ");
	const pids = escaped.map(({ pid }) => pid).join(" ");
	const one = escaped.length === 1;
	const [object, subject, verb] = one ? ["it", "it", "keeps"] : ["them", "they", "keep"];
	return `[Not tracked: ${list} started during this command in a new session with a cleared environment. toolbelt cannot stop ${object} on this system, so ${subject} ${verb} running after toolbelt exits. If the command started ${object} and ${subject} should not keep running, stop ${object}: kill ${pids}]`;
}

/** The text the model reads: output, truncation notice, background and escape notices. */
function composeText(
	output: ShellOutput,
	backgroundPids: number[],
	escaped: readonly EscapedProcess[] = [],
	notices: readonly string[] = [],
): string {
	// One trailing newline is how output ends, not content; notices follow after a blank line.
	const body = output.text.endsWith("\n") ? output.text.slice(0, -1) : output.text;
	const parts = [body === "" ? "(no output)" : body];
	const { truncation } = output;
	if (truncation.truncated) {
		const host = output.fullOutputHost ? ` (on the remote host ${output.fullOutputHost}, not this machine)` : "";
		const where = output.fullOutputPath
			? `Full output: ${output.fullOutputPath}${host}`
			: `The full output could not be saved (${output.fullOutputError ?? "unknown error"})`;
		parts.push(
			`[Output truncated: showing the last ${truncation.outputLines} of ${truncation.originalLines} lines (${formatSize(truncation.outputBytes)} of ${formatSize(truncation.originalBytes)}). ${where}]`,
		);
	}
	if (backgroundPids.length > 0) {
		parts.push(
			`[Still running in the background: pid ${backgroundPids.join(", ")}. These processes are stopped when toolbelt exits.]`,
		);
	}
	if (escaped.length > 0) parts.push(escapedNotice(escaped));
	parts.push(...notices);
	return parts.join("\n\n");
}

/** Why the call failed, or undefined when it succeeded. */
function failureOf(result: ShellExecResult, timeoutSeconds: number, options: ShellToolOptions): string | undefined {
	if (result.aborted) return cancelledMessage();
	if (result.timedOut) {
		const maximum = options.maxTimeoutSeconds ?? DEFAULT_MAX_TIMEOUT_SECONDS;
		return `Command timed out after ${timeoutSeconds} second${timeoutSeconds === 1 ? "" : "s"}; it and all its processes were killed. The output so far is above. If it needs more time, run it again with a larger timeout (at most ${maximum}), or start it in the background (\`cmd > log 2>&1 &\`) and check the log.`;
	}
	if (result.signal) return `Command was killed by signal ${result.signal}.`;
	if (result.exitCode !== 0) return `Command exited with code ${result.exitCode}`;
	return undefined;
}

/** One execution's inputs, shared by the file and pipe paths. */
interface ExecRun {
	operations: ShellOperations;
	request: Omit<ShellExecRequest, "onData">;
	options: ShellToolOptions;
	/** Sends the growing tail as a progress update; absent when nobody listens. */
	sendUpdate: ((text: string) => void) | undefined;
}

/** A finished process, and how to read its output. */
interface Execution {
	result: ShellExecResult;
	finish: () => Promise<ShellOutput>;
}

/**
 * The fast path, where the executor offers it: the shell writes straight into the output file,
 * and progress updates read its tail when it has grown. Undefined when the executor cannot, or
 * the file cannot be created (the pipe path then runs).
 */
async function execIntoFile(run: ExecRun): Promise<Execution | undefined> {
	const { operations, options, sendUpdate } = run;
	// A terminal's output cannot go straight to a file.
	if (!operations.execToFile || run.request.tty) return undefined;
	let output: FileShellOutput;
	try {
		output = FileShellOutput.create({ maxBytes: options.maxBytes, maxLines: options.maxLines });
	} catch {
		return undefined;
	}
	let reported = 0;
	const updates = sendUpdate
		? setInterval(() => {
				const size = output.size();
				if (size === reported) return;
				reported = size;
				sendUpdate(output.preview());
			}, updateIntervalMs)
		: undefined;
	let result: ShellFileExecResult;
	try {
		result = await operations.execToFile(run.request, output.descriptor);
	} catch (error) {
		// Before the file's descriptors close: an update due while the file is released would read a
		// closed descriptor, and throw from its timer (seen under load: EBADF from `size`).
		clearInterval(updates);
		await output.discard();
		throw error;
	} finally {
		clearInterval(updates);
	}
	// An executor that predates `outputWriters` still names the background jobs.
	return { result, finish: () => output.finish(result.outputWriters ?? result.backgroundPids) };
}

/** The model-facing budget of one result: the tool's, else the defaults. */
function outputBudget(options: ShellToolOptions): { maxBytes: number; maxLines: number } {
	return { maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES, maxLines: options.maxLines ?? DEFAULT_MAX_LINES };
}

/** Where the executor keeps the output itself (a remote machine): only the tail comes back. */
async function execKeepingOutput(run: ExecRun): Promise<Execution | undefined> {
	const { operations, options, sendUpdate } = run;
	if (!operations.execKeepingOutput || run.request.tty) return undefined;
	const kept = await operations.execKeepingOutput(run.request, {
		budget: outputBudget(options),
		...(sendUpdate ? { onPreview: sendUpdate } : {}),
	});
	return { result: kept.result, finish: async () => kept.output };
}

/** The general path: the executor hands over the output in chunks, kept in a bounded buffer. */
async function execThroughPipe(run: ExecRun): Promise<Execution> {
	const { operations, options, sendUpdate } = run;
	const output = new ShellOutputBuffer({ maxBytes: options.maxBytes, maxLines: options.maxLines });
	const updates = sendUpdate ? createThrottle<void>(updateIntervalMs, () => sendUpdate(output.preview())) : undefined;
	let result: ShellExecResult;
	try {
		result = await operations.exec({
			...run.request,
			onData: (chunk) => {
				const wait = output.write(chunk);
				updates?.push();
				return wait;
			},
		});
	} catch (error) {
		await output.discard();
		throw error;
	} finally {
		updates?.close();
	}
	return { result, finish: () => output.finish() };
}

/** A job runs until killed unless the model gave it a timeout. */
function backgroundTimeoutMs(input: RunShellToolInput): number {
	if (input.timeoutSeconds === undefined) return longestTimerSeconds * 1000;
	return effectiveTimeout(input.timeoutSeconds, input.options) * 1000;
}

async function startInBackground(
	input: RunShellToolInput,
	prepared: {
		operations: ShellOperations;
		request: Omit<ShellExecRequest, "onData">;
		timeoutSeconds: number;
		startedAt: number;
	},
): Promise<ToolResult<ShellToolDetails>> {
	const { options } = input;
	if (!options.jobs) {
		throw new ToolError(
			"run_in_background is not available here: this tool was created without a session's job registry (the `jobs` option). Run the command in the foreground, or redirect it to a log (`cmd > log 2>&1 &`).",
		);
	}
	const { signal: _callSignal, ...request } = prepared.request;
	const started = await startBackgroundJob({
		jobs: options.jobs,
		command: input.command,
		operations: prepared.operations,
		request: { ...request, timeoutMs: backgroundTimeoutMs(input) },
		budget: outputBudget(options),
		...(input.session ? { session: input.session } : {}),
	});
	const job = started.details;
	const details: ShellToolDetails = {
		...emptyDetails(prepared.timeoutSeconds, prepared.startedAt),
		...(job.status.state === "exited" ? { exitCode: job.status.exitCode } : {}),
		...(job.pid !== undefined ? { pid: job.pid } : {}),
		jobId: job.jobId,
		job,
	};
	return { content: [{ type: "text", text: started.text }], details };
}

/**
 * Runs one shell command for a tool: resolves the shell, streams output through a bounded buffer,
 * kills the tree on timeout or abort, and turns the outcome into a result (or a `ToolError` that
 * carries the output and details).
 */
export async function runShellTool(input: RunShellToolInput): Promise<ToolResult<ShellToolDetails>> {
	const { options, cwd } = input;
	const startedAt = monotonicMs();
	const timeoutSeconds = effectiveTimeout(input.timeoutSeconds, options);
	if (input.signal?.aborted)
		throw new ToolError(cancelledMessage(), { ...emptyDetails(timeoutSeconds, startedAt), cancelled: true });

	const operations = options.operations ?? localShellOperations;
	// A command run into a file gets its shell started now, so that it starts (and joins its
	// cgroup) while this call checks the folder and resolves the shell.
	if (!input.background && !input.tty) operations.prepare?.(cwd);
	if (!(await operations.isDirectory(cwd))) {
		throw new ToolError(
			`The working directory ${cwd} does not exist (or is not a directory), so the command was not run. Create it, or use a tool set whose cwd exists.`,
		);
	}
	const env = buildShellEnvironment(options.env, options.passEnvironment);
	const command = options.commandPrefix ? `${options.commandPrefix}\n${input.command}` : input.command;
	const shell = await input.resolveShell({ command, options, operations, env });

	const request: Omit<ShellExecRequest, "onData"> = {
		file: shell.file,
		args: shell.args,
		cwd,
		env,
		timeoutMs: timeoutSeconds * 1000,
		signal: input.signal,
		...(shell.stdin !== undefined ? { stdin: shell.stdin } : {}),
		...(input.tty ? { tty: true } : {}),
	};
	if (input.background) {
		return startInBackground(input, { operations, request, timeoutSeconds, startedAt });
	}
	const { onUpdate } = input;
	const sendUpdate = onUpdate
		? (text: string) =>
				onUpdate({ content: [{ type: "text", text }], details: { ...emptyDetails(timeoutSeconds, startedAt) } })
		: undefined;
	const run = { operations, request, options, sendUpdate };
	let execution: Execution;
	try {
		execution = (await execKeepingOutput(run)) ?? (await execIntoFile(run)) ?? (await execThroughPipe(run));
	} catch (error) {
		if ((error as { code?: string }).code === "E2BIG") {
			throw new ToolError(
				`The command is too long to pass to ${shell.file} (${formatSize(Buffer.byteLength(command, "utf8"))}), so it was not run. Write long content to a file with the write tool, then run a short command that uses it.`,
			);
		}
		throw new ToolError(`Could not start ${shell.file}: ${(error as Error).message}`);
	}
	const { result } = execution;
	let finished: ShellOutput;
	try {
		finished = await execution.finish();
	} catch (error) {
		const ended = failureOf(result, timeoutSeconds, options) ?? "The command succeeded.";
		throw new ToolError(
			`${ended} Its output could not be read back: ${(error as Error).message}. Run it again with its output redirected to a file (\`cmd > out.log 2>&1\`) and read that file.`,
		);
	}

	const details: ShellToolDetails = {
		exitCode: result.exitCode,
		signal: result.signal,
		durationMs: Math.round(monotonicMs() - startedAt),
		timedOut: result.timedOut,
		cancelled: result.aborted,
		timeoutSeconds,
		truncation: finished.truncation,
		...(finished.fullOutputPath ? { fullOutputPath: finished.fullOutputPath } : {}),
		backgroundPids: result.backgroundPids,
		...(result.escapedProcesses?.length ? { escapedProcesses: result.escapedProcesses } : {}),
		...(result.pid !== undefined ? { pid: result.pid } : {}),
		...(result.network?.length ? { network: result.network } : {}),
	};
	const text = composeText(finished, result.backgroundPids, result.escapedProcesses, result.notices);
	const failure = failureOf(result, timeoutSeconds, options);
	if (failure) throw new ToolError(`${text}\n\n${failure}`, details);
	return { content: [{ type: "text", text }], details };
}

/**
 * The `execute` of a shell tool (bash, powershell): the tools differ only in how the shell is
 * found and how the command is passed.
 */
export function shellToolExecute(cwd: string, options: ShellToolOptions, resolveShell: ShellResolver) {
	return (
		_toolCallId: string,
		args: { command: string; timeout?: number; run_in_background?: boolean; tty?: boolean },
		signal: AbortSignal | undefined,
		onUpdate?: ToolUpdateCallback<ShellToolDetails>,
		context?: ToolExecuteContext,
	): Promise<ToolResult<ShellToolDetails>> =>
		runShellTool({
			cwd,
			options,
			command: args.command,
			timeoutSeconds: args.timeout,
			signal,
			onUpdate,
			resolveShell,
			background: args.run_in_background === true,
			tty: args.tty === true,
			...(context?.session ? { session: context.session } : {}),
		});
}
