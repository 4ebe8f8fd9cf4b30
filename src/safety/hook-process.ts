import { spawn } from "node:child_process";

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
	/** Kill the command's whole process group after this many ms. */
	timeoutMs: number;
	/** Aborting kills the process group. */
	signal?: AbortSignal;
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

const MAX_CAPTURE_BYTES = 1024 * 1024;

function killGroup(pid: number | undefined): void {
	if (pid === undefined) return;
	try {
		process.kill(-pid, "SIGKILL");
	} catch {
		// Already gone.
	}
}

/**
 * Runs a hook command in its own process group with JSON on stdin. On timeout or abort the
 * whole group is killed; when the command exits, anything it left running in its group is
 * killed too, so a hook never outlives its call and never holds the call open through a pipe.
 */
export function runHookProcess(input: HookProcessInput): Promise<HookProcessResult> {
	return new Promise((resolvePromise) => {
		const stdout: Buffer[] = [];
		const stderr: Buffer[] = [];
		let stdoutBytes = 0;
		let stderrBytes = 0;
		let timedOut = false;
		let aborted = false;
		let settled = false;
		const child = spawn("/bin/sh", ["-c", input.command], {
			cwd: input.cwd,
			env: input.env,
			detached: process.platform !== "win32",
			stdio: ["pipe", "pipe", "pipe"],
		});
		const finish = (result: Partial<HookProcessResult>) => {
			if (settled) return;
			settled = true;
			clearTimeout(timer);
			input.signal?.removeEventListener("abort", onAbort);
			resolvePromise({
				exitCode: null,
				signal: null,
				stdout: Buffer.concat(stdout).toString("utf8"),
				stderr: Buffer.concat(stderr).toString("utf8"),
				timedOut,
				aborted,
				...result,
			});
		};
		const timer = setTimeout(() => {
			timedOut = true;
			killGroup(child.pid);
		}, input.timeoutMs);
		const onAbort = () => {
			aborted = true;
			killGroup(child.pid);
		};
		if (input.signal?.aborted) onAbort();
		else input.signal?.addEventListener("abort", onAbort, { once: true });
		child.stdout.on("data", (chunk: Buffer) => {
			if (stdoutBytes < MAX_CAPTURE_BYTES) stdout.push(chunk);
			stdoutBytes += chunk.length;
		});
		child.stderr.on("data", (chunk: Buffer) => {
			if (stderrBytes < MAX_CAPTURE_BYTES) stderr.push(chunk);
			stderrBytes += chunk.length;
		});
		// A hook that does not read its stdin closes the pipe early; that is not an error.
		child.stdin.on("error", () => {});
		child.stdin.end(input.stdin);
		child.on("error", (error) => finish({ spawnError: error.message }));
		child.on("exit", (exitCode, signal) => {
			killGroup(child.pid);
			// Give the pipes a moment to drain what the hook wrote before it exited.
			const drained = () => finish({ exitCode, signal });
			const streams = [child.stdout, child.stderr].filter((stream) => !stream.closed);
			let pending = streams.length;
			if (pending === 0) drained();
			for (const stream of streams) {
				stream.once("close", () => {
					pending--;
					if (pending === 0) drained();
				});
			}
			setTimeout(drained, 500).unref();
		});
	});
}
