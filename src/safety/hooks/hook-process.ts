import { spawn } from "node:child_process";
import { resolve as resolvePath } from "node:path";
import type { Readable } from "node:stream";
import {
	attachRoot,
	containedCommand,
	createProcessContainment,
	killContainment,
	type ProcessContainment,
	releaseContainment,
} from "../../tools/index.js";
import { launchHook } from "./hook-launcher.js";
import { HOOK_CAPTURE_BYTES } from "./hook-output.js";

/** One run of a hook command. */
export interface HookProcessInput {
	/** The command line, run by `/bin/sh -c`. */
	command: string;
	/** Written to the command's stdin, then stdin is closed. */
	stdin: string;
	/** Working directory. */
	cwd: string;
	/** Complete environment of the command. */
	env: NodeJS.ProcessEnv;
	/** Kill the command and everything it started after this many ms. */
	timeoutMs: number;
	/** Aborting kills the command and everything it started. */
	signal?: AbortSignal;
	/**
	 * The launcher the shell runs under (a sandbox's program and its arguments, up to the command):
	 * `/bin/sh -c <command>` is appended. Default: none (the shell runs directly).
	 */
	launcher?: { file: string; args: readonly string[] };
}

/** How a hook command ended. */
export interface HookProcessResult {
	/** Exit code, or null when killed by a signal or never started. */
	exitCode: number | null;
	/** The signal that ended it, or null. */
	signal: string | null;
	/** stdout, at most 1 MiB. */
	stdout: string;
	/** stderr, at most 1 MiB. */
	stderr: string;
	/** True when it was killed for taking longer than `timeoutMs`. */
	timedOut: boolean;
	/** True when it was killed because `signal` aborted. */
	aborted: boolean;
	/** Why it could not be started, if it could not. */
	spawnError?: string;
}

/**
 * A command line that is one path and nothing else: no quoting, expansion, operator or assignment,
 * and a slash, so neither a builtin nor a `PATH` search. For it `sh -c` would only exec the file.
 */
const plainPath = /^[\w./+,@%][\w./+,@%-]*$/;

function isPlainPath(command: string): boolean {
	return command.includes("/") && plainPath.test(command);
}

/**
 * The program the hook's process runs, before its containment, and the variables it adds. A plain
 * path in a PID namespace is exec'd without a shell, one process start fewer per hook (the most of a
 * hook's cost on a loaded machine): `execvp` runs a file without a `#!` line through `/bin/sh` as the
 * shell would, gives the shell's exit codes (127 not found, 126 not executable), and `PWD` is set to
 * the hook's folder as the shell would have exported it.
 */
function hookProgram(
	input: HookProcessInput,
	containment: ProcessContainment,
): { file: string; args: string[]; env: Record<string, string>; direct?: boolean } {
	const shell = ["/bin/sh", "-c", input.command];
	if (input.launcher) return { file: input.launcher.file, args: [...input.launcher.args, ...shell], env: {} };
	if (containment.mechanism === "pid-namespace" && isPlainPath(input.command)) {
		return { file: input.command, args: [], env: { PWD: resolvePath(input.cwd) }, direct: true };
	}
	return { file: "/bin/sh", args: shell.slice(1), env: {} };
}

/** `unshare`'s words for a file it could not exec, said as the shell says them (the command, not `unshare`). */
function execFailureText(stderr: string): string {
	const failed = /^unshare: failed to execute (.*): ([^\n]*)\n?$/.exec(stderr);
	return failed ? `${failed[1]}: ${failed[2]}\n` : stderr;
}

/** How long a launched hook may take to be reported gone after its SIGKILL, in ms. */
const LAUNCHED_EXIT_WAIT_MS = 2000;
/** After the hook exits, how long its pipes may take to deliver what it wrote, in ms. */
const drainMs = 500;

/** One running hook: its output streams, how to end everything it started, and what it wrote so far. */
interface HookRun {
	input: HookProcessInput;
	stdoutStream: Readable | null;
	stderrStream: Readable | null;
	/** Ends every process of the hook; resolves once they are gone. */
	endTree: () => Promise<void>;
	stdout: Buffer[];
	stderr: Buffer[];
	stdoutBytes: number;
	stderrBytes: number;
	timedOut: boolean;
	aborted: boolean;
	settled: boolean;
	/** The kill of everything the hook started; the run settles only after it. */
	killing: Promise<void> | undefined;
	timer: NodeJS.Timeout | undefined;
	onAbort: () => void;
	resolve: (result: HookProcessResult) => void;
	/** Exec'd without a shell: an exec failure is reported by `unshare` (or the Perl launcher, in the shell's words). */
	direct: boolean;
}

function killHookTree(run: HookRun): Promise<void> {
	run.killing ??= run.endTree();
	return run.killing;
}

async function finishHook(run: HookRun, result: Partial<HookProcessResult>): Promise<void> {
	if (run.settled) return;
	run.settled = true;
	clearTimeout(run.timer);
	run.input.signal?.removeEventListener("abort", run.onAbort);
	// Nothing the hook started may outlive it, `setsid` children included.
	await killHookTree(run);
	const stderr = Buffer.concat(run.stderr).toString("utf8");
	const execFailed = run.direct && (result.exitCode === 126 || result.exitCode === 127);
	run.resolve({
		exitCode: null,
		signal: null,
		stdout: Buffer.concat(run.stdout).toString("utf8"),
		stderr: execFailed ? execFailureText(stderr) : stderr,
		timedOut: run.timedOut,
		aborted: run.aborted,
		...result,
	});
}

function capture(run: HookRun): void {
	run.stdoutStream?.on("data", (chunk: Buffer) => {
		if (run.stdoutBytes < HOOK_CAPTURE_BYTES) run.stdout.push(chunk);
		run.stdoutBytes += chunk.length;
	});
	run.stderrStream?.on("data", (chunk: Buffer) => {
		if (run.stderrBytes < HOOK_CAPTURE_BYTES) run.stderr.push(chunk);
		run.stderrBytes += chunk.length;
	});
}

function onHookExit(run: HookRun, exitCode: number | null, signal: NodeJS.Signals | null): void {
	// Whatever the hook left running dies now, which also closes the pipes it held.
	void killHookTree(run);
	// Give the pipes a moment to drain what the hook wrote before it exited.
	const drained = () => void finishHook(run, { exitCode, signal });
	const streams = [run.stdoutStream, run.stderrStream].filter((stream) => stream !== null && !stream.closed);
	let pending = streams.length;
	if (pending === 0) drained();
	for (const stream of streams) {
		stream?.once("close", () => {
			pending--;
			if (pending === 0) drained();
		});
	}
	setTimeout(drained, drainMs).unref();
}

function armHookLimits(run: HookRun): void {
	run.timer = setTimeout(() => {
		run.timedOut = true;
		void killHookTree(run);
	}, run.input.timeoutMs);
	run.onAbort = () => {
		run.aborted = true;
		void killHookTree(run);
	};
	if (run.input.signal?.aborted) run.onAbort();
	else run.input.signal?.addEventListener("abort", run.onAbort, { once: true });
}

function newRun(
	input: HookProcessInput,
	streams: Pick<HookRun, "stdoutStream" | "stderrStream" | "endTree">,
	resolve: (result: HookProcessResult) => void,
	direct: boolean,
): HookRun {
	return {
		input,
		...streams,
		stdout: [],
		stderr: [],
		stdoutBytes: 0,
		stderrBytes: 0,
		timedOut: false,
		aborted: false,
		settled: false,
		killing: undefined,
		timer: undefined,
		onAbort: () => {},
		resolve,
		direct,
	};
}

/** Spawns the hook from this process, in `containment`. */
function spawnHook(input: HookProcessInput, containment: ProcessContainment): Promise<HookProcessResult> {
	return new Promise((resolve) => {
		const { file: program, args: programArgs, env, direct = false } = hookProgram(input, containment);
		const { file, args } = containedCommand(containment, program, programArgs);
		const child = spawn(file, args, {
			cwd: input.cwd,
			env: { ...input.env, ...env, ...containment.env },
			detached: process.platform !== "win32",
			stdio: ["pipe", "pipe", "pipe"],
		});
		attachRoot(containment, child.pid);
		const endTree = () =>
			killContainment(containment.tree).then(() => {
				releaseContainment(containment.tree);
			});
		const run = newRun(input, { stdoutStream: child.stdout, stderrStream: child.stderr, endTree }, resolve, direct);
		armHookLimits(run);
		capture(run);
		// A hook that does not read its stdin closes the pipe early; that is not an error.
		child.stdin?.on("error", () => {});
		child.stdin?.end(input.stdin);
		child.on("error", (error) => void finishHook(run, { spawnError: error.message }));
		child.on("exit", (exitCode, signal) => onHookExit(run, exitCode, signal));
	});
}

/**
 * Starts the hook, in its own PID namespace, through the launcher (see `hook-launcher.ts`): forked
 * by a small program instead of by this process, into the namespace the launcher makes (Perl) or
 * through the same `unshare` line as `spawnHook` (the shell). Undefined when the launcher cannot pass
 * the hook's environment exactly, cannot be started, or failed before the hook began: the hook is then
 * spawned from this process, with the same namespace.
 */
async function launchInNamespace(
	input: HookProcessInput,
	containment: ProcessContainment,
): Promise<HookProcessResult | undefined> {
	const { file, args, env, direct = false } = hookProgram(input, containment);
	let launched: Awaited<ReturnType<typeof launchHook>>;
	try {
		launched = await launchHook({
			file,
			args,
			inNamespace: (program, programArgs) => containedCommand(containment, program, programArgs),
			cwd: input.cwd,
			env: { ...input.env, ...env, ...containment.env },
			stdin: input.stdin,
		});
	} catch {
		return undefined;
	}
	if (!launched) return undefined;
	const hook = launched;
	// Everything the hook started lives in its namespace, which ends with its first process; the
	// launcher says when it has (bounded, should its answer never come).
	const endTree = async () => {
		hook.kill();
		let timer: NodeJS.Timeout | undefined;
		await Promise.race([hook.exit, new Promise((resolve) => (timer = setTimeout(resolve, LAUNCHED_EXIT_WAIT_MS)))]);
		clearTimeout(timer);
	};
	const result = await new Promise<HookProcessResult | undefined>((resolve) => {
		const streams = { stdoutStream: hook.stdout ?? null, stderrStream: hook.stderr ?? null };
		const run = newRun(input, { ...streams, endTree }, resolve, direct);
		armHookLimits(run);
		capture(run);
		void hook.exit.then((ended) => {
			if (ended.error !== undefined && ended.notStarted && !run.settled && !run.aborted && !run.timedOut) {
				// The launcher failed before the hook began: it is spawned from this process instead.
				run.settled = true;
				clearTimeout(run.timer);
				input.signal?.removeEventListener("abort", run.onAbort);
				return resolve(undefined);
			}
			if (ended.error !== undefined) return void finishHook(run, { spawnError: ended.error });
			if (ended.output) {
				run.stdout.push(ended.output.stdout);
				run.stderr.push(ended.output.stderr);
			}
			onHookExit(run, ended.exitCode, ended.signal);
		});
	});
	hook.release();
	return result;
}

/**
 * Runs a hook command with JSON on stdin, in the same containment as the shell tools (its own
 * PID namespace where one can be made, else its own cgroup where one is writable, else its own
 * process group and marker). On timeout or abort everything it started is killed; when it exits,
 * anything it left running is killed too (also `setsid` children), so a hook never outlives its
 * call and never holds the call open through a pipe. Resolves after those processes are gone.
 */
export async function runHookProcess(input: HookProcessInput): Promise<HookProcessResult> {
	// A hook must leave nothing running: a PID namespace of its own does that most cheaply.
	const containment = createProcessContainment({ preferPidNamespace: true });
	if (containment.mechanism === "pid-namespace" && !input.launcher) {
		const launched = await launchInNamespace(input, containment);
		if (launched) return launched;
	}
	return spawnHook(input, containment);
}
