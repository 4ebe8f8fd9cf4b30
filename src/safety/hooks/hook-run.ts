// One run of one hook command, classified: a broken process, exit 2, an unreadable answer, or an answer.

import type { HookCommandSettings } from "../settings/settings.js";
import { type HookAnswer, parseHookStdout } from "./hook-output.js";
import { type HookProcessResult, runHookProcess } from "./hook-process.js";

/** A hook command that could not do its job. */
export interface HookFailure {
	/** `PreToolUse` or `PostToolUse`. */
	event: HookEvent;
	/** The command line of the hook. */
	command: string;
	/** What went wrong, in words. */
	message: string;
	/**
	 * What happened to the call: the hook's `onError` for a crash or timeout; always `block` for an
	 * answer that cannot be acted on (a PreToolUse call is then not run).
	 */
	onError: "block" | "continue";
}

/** The two events hooks can run on. */
export type HookEvent = "PreToolUse" | "PostToolUse";

/** What running one hook needs from the command hooks' state. */
export interface HookRunSettings {
	/** Working directory of the hook (also sent as its `cwd`). */
	cwd: string;
	/** Where the hook process runs when that differs from `cwd` (a remote workspace's folder is not on this machine). Default: `cwd`. */
	processCwd?: string;
	/** The complete environment of the hook. */
	environment: NodeJS.ProcessEnv;
	/** Timeout of a hook without its own `timeout`, in seconds. */
	defaultTimeoutSeconds: number;
	/** Told about every failed or unreadable hook. */
	onHookError?: (failure: HookFailure) => void;
	/**
	 * The sandbox hooks run in, when commands run in one (a hook must not run on the host a
	 * program a sandboxed command could have written). Undefined: hooks run directly.
	 */
	sandbox?: () => HookSandbox | undefined;
}

/** What running a hook inside a sandbox needs: `Sandbox.prepare`. */
export interface HookSandbox {
	/** Prepares one sandboxed run in `cwd` (throws when the sandbox cannot be set up). */
	prepare(cwd: string): Promise<{
		file: string;
		args: string[];
		finish(): string[];
		release(): Promise<void>;
	}>;
}

/** Runs the hook process, inside the sandbox when there is one; a sandbox that cannot be set up is a spawn error. */
async function runHookProcessWhere(
	state: HookRunSettings,
	input: Parameters<typeof runHookProcess>[0],
): Promise<HookProcessResult> {
	const sandbox = state.sandbox?.();
	if (!sandbox) return runHookProcess(input);
	let launch: Awaited<ReturnType<HookSandbox["prepare"]>>;
	try {
		launch = await sandbox.prepare(input.cwd);
	} catch (error) {
		const empty = { exitCode: null, signal: null, stdout: "", stderr: "", timedOut: false, aborted: false };
		return { ...empty, spawnError: `the sandbox hooks run in could not be set up: ${(error as Error).message}` };
	}
	try {
		return await runHookProcess({ ...input, launcher: launch });
	} finally {
		launch.finish();
		await launch.release();
	}
}

function describeFailure(result: HookProcessResult, timeoutSeconds: number): string | undefined {
	if (result.spawnError) return `could not be started (${result.spawnError})`;
	if (result.timedOut) return `timed out after ${timeoutSeconds} s and was killed`;
	if (result.aborted) return "was cancelled";
	if (result.signal) return `was killed by ${result.signal}`;
	const stderr = result.stderr.trim();
	const detail = stderr === "" ? "" : `: ${stderr.slice(0, 2000)}`;
	if (result.exitCode === 127) return `could not run its command: not found (exit code 127)${detail}`;
	if (result.exitCode === 126) return `could not run its command: not executable (exit code 126)${detail}`;
	if (result.exitCode !== 0 && result.exitCode !== 2) return `failed with exit code ${result.exitCode}${detail}`;
	return undefined;
}

/** Which hook ran on which event. */
export interface HookStep {
	event: HookEvent;
	hook: HookCommandSettings;
}

/**
 * How one hook run ended: its process failed (`onError` decides), it exited 2, its stdout cannot be
 * read as an answer (always fails closed), or it answered with a JSON object (`{}` for plain text).
 */
export type HookRun = HookStep &
	(
		| { kind: "failed"; failure: string; onError: "block" | "continue" }
		| { kind: "unreadable"; failure: string }
		| { kind: "exit2"; stderr: string }
		| { kind: "answered"; output: Record<string, unknown> }
	);

/** Reports an answer that cannot be acted on; returns the failure text, which names the hook. */
function unreadable(state: HookRunSettings, step: HookStep, problem: string): string {
	state.onHookError?.({ event: step.event, command: step.hook.command, message: problem, onError: "block" });
	return `${step.event} hook "${step.hook.command}" ${problem}`;
}

/** The event's reading of an answered run, or the failure text of an unreadable one (reported once). */
export function checkedAnswer<T>(
	state: HookRunSettings,
	ran: Extract<HookRun, { kind: "answered" | "unreadable" }>,
	read: (output: Record<string, unknown>) => HookAnswer<T>,
): { ok: true; answer: T } | { ok: false; failure: string } {
	if (ran.kind === "unreadable") return { ok: false, failure: ran.failure };
	const checked = read(ran.output);
	if (checked.ok) return checked;
	return { ok: false, failure: unreadable(state, ran, checked.problem) };
}

/** One hook to run: the step, the JSON written to its stdin, and the call's abort signal. */
export interface HookRequest extends HookStep {
	payload: Record<string, unknown>;
	signal?: AbortSignal;
}

/** Runs one hook command on its payload and classifies how it ended. */
export async function runHook(state: HookRunSettings, request: HookRequest): Promise<HookRun> {
	const { event, hook } = request;
	const step = { event, hook };
	const timeoutSeconds = hook.timeout ?? state.defaultTimeoutSeconds;
	const result = await runHookProcessWhere(state, {
		command: hook.command,
		stdin: JSON.stringify(request.payload),
		cwd: state.processCwd ?? state.cwd,
		env: state.environment,
		timeoutMs: timeoutSeconds * 1000,
		signal: request.signal,
	});
	const failure = describeFailure(result, timeoutSeconds);
	if (failure) {
		const onError = hook.onError ?? "block";
		state.onHookError?.({ event, command: hook.command, message: failure, onError });
		return { ...step, kind: "failed", failure: `${event} hook "${hook.command}" ${failure}`, onError };
	}
	if (result.exitCode === 2) return { ...step, kind: "exit2", stderr: result.stderr.trim() };
	const parsed = parseHookStdout(result.stdout);
	if (!parsed.ok) return { ...step, kind: "unreadable", failure: unreadable(state, step, parsed.problem) };
	return { ...step, kind: "answered", output: parsed.answer };
}
