import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { constants, existsSync, fstatSync } from "node:fs";
import { access, stat } from "node:fs/promises";
import { delimiter, isAbsolute, join } from "node:path";
import type { Readable } from "node:stream";
import { registerBackgroundRun } from "./background-registry.js";
import { canRelayOutput, isOutputRelay, startWithRelay } from "./output-relay.js";
import { findTreeProcesses, PROCESS_MARKER_VARIABLE, type ProcessTree, terminateTree } from "./process-tree.js";
import type { ShellExecRequest, ShellExecResult, ShellFileExecResult, ShellOperations } from "./types.js";

/** Time from SIGTERM to SIGKILL when a command is timed out or aborted, in ms. */
const killGraceMs = 200;

/**
 * After the shell exits, how long to keep reading for output still in the pipe. With background
 * processes holding the pipe open, reading stops after a short idle time; otherwise it continues
 * until the pipe closes or goes idle, and at most `drainCapMs`: a writer that escaped tracking
 * (own session and marker removed) may keep the pipe busy forever.
 */
const drainIdleWithBackgroundMs = 50;
const drainCapWithBackgroundMs = 300;
const drainIdleMs = 1000;
const drainCapMs = 2000;
/** After a tree kill, how long to wait for the shell's exit to be reported before settling without it, in ms. */
const shellExitFallbackMs = 500;
/**
 * How long an exited command waits for the relay's pid, in ms. The relay writes it as it starts,
 * alongside the command, so only a very short command on a machine starved of CPU waits at all.
 */
const relayAnnouncementWaitMs = 1000;

function outputFileSize(descriptor: number): number {
	try {
		return fstatSync(descriptor).size;
	} catch {
		return -1;
	}
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

async function isExecutableFile(path: string): Promise<boolean> {
	try {
		const info = await stat(path);
		if (!info.isFile()) return false;
		if (process.platform !== "win32") await access(path, constants.X_OK);
		return true;
	} catch {
		return false;
	}
}

async function findExecutable(nameOrPath: string, env: Record<string, string>): Promise<string | undefined> {
	if (isAbsolute(nameOrPath) || nameOrPath.includes("/") || nameOrPath.includes("\\")) {
		return (await isExecutableFile(nameOrPath)) ? nameOrPath : undefined;
	}
	const searchPath = env.PATH ?? env.Path ?? "";
	const extensions =
		process.platform === "win32" && !/\.[^.]+$/.test(nameOrPath)
			? (env.PATHEXT ?? ".COM;.EXE;.BAT;.CMD").split(";")
			: [""];
	for (const directory of searchPath.split(delimiter)) {
		if (directory === "") continue;
		for (const extension of extensions) {
			const candidate = join(directory, nameOrPath + extension);
			if (await isExecutableFile(candidate)) return candidate;
		}
	}
	return undefined;
}

async function isDirectory(path: string): Promise<boolean> {
	try {
		return (await stat(path)).isDirectory();
	} catch {
		return false;
	}
}

// On POSIX a tiny `sh` wrapper points the shell's stderr at its stdout pipe before exec'ing it, so
// both streams arrive through one pipe in the exact order they were written.
const mergeStreamsScript = 'exec "$@" 2>&1';
const canMergeStreams = process.platform !== "win32" && existsSync("/bin/sh");

/** A request without `onData`: the output goes to `outputFile` instead. */
type ExecRequest = Omit<ShellExecRequest, "onData"> & { onData?: ShellExecRequest["onData"] };

function startProcess(request: ExecRequest, marker: string, outputFile: number | undefined): ChildProcess {
	const env: Record<string, string> = { ...request.env, [PROCESS_MARKER_VARIABLE]: marker };
	// Own process group (and session), so the whole tree can be signalled at once.
	const common = { cwd: request.cwd, detached: process.platform !== "win32" };
	if (outputFile !== undefined) {
		return startWithRelay({ file: request.file, args: request.args, env, outputFile, ...common });
	}
	const [file, args] = canMergeStreams
		? ["/bin/sh", ["-c", mergeStreamsScript, "sh", request.file, ...request.args]]
		: [request.file, request.args];
	return spawn(file, args, {
		...common,
		env,
		stdio: ["pipe", "pipe", canMergeStreams ? "ignore" : "pipe"],
		windowsHide: true,
	});
}

function exec(request: ShellExecRequest): Promise<ShellExecResult> {
	return run(request, undefined);
}

function execToFile(request: Omit<ShellExecRequest, "onData">, outputFile: number): Promise<ShellFileExecResult> {
	return run(request, outputFile);
}

function run(request: ExecRequest, outputFile: number | undefined): Promise<ShellFileExecResult> {
	return new Promise((resolve, reject) => {
		const marker = `${process.pid}-${randomUUID()}`;
		let child: ChildProcess;
		try {
			child = startProcess(request, marker, outputFile);
		} catch (error) {
			reject(error);
			return;
		}
		const tree: ProcessTree = { groupId: child.pid, marker, rootPid: child.pid };
		// Through the relay, the one stream is its fd 3: the relay's pid, then its end (when it has
		// copied everything).
		const relayChannel = outputFile === undefined ? undefined : (child.stdio[3] as Readable | null | undefined);
		const streams = (relayChannel ? [relayChannel] : [child.stdout, child.stderr]).filter(
			(stream): stream is Readable => stream !== null && stream !== undefined,
		);
		let openStreams = streams.length;
		let relayAnnouncement = "";
		let relayPid: number | undefined;
		let relayAnnounced: () => void = () => {};
		const relayKnown = relayChannel
			? new Promise<void>((resolve) => {
					relayAnnounced = resolve;
					relayChannel.once("close", () => resolve());
				})
			: Promise.resolve();
		let exit: { code: number | null; signal: string | null } | undefined;
		let killing: Promise<void> | undefined;
		let timedOut = false;
		let aborted = false;
		let settled = false;
		let discarding = false;
		let lastActivity = Date.now();
		let drainTimer: NodeJS.Timeout | undefined;
		let drainDeadline = Number.POSITIVE_INFINITY;
		let drainIdle = drainIdleMs;
		let backgroundPids: number[] = [];
		// Set the moment the shell exits: a timeout or abort after that must not kill what it left running.
		let shellExited = false;
		// Through the relay, activity is the output file growing (the channel carries no output).
		let outputSize = -1;

		// Empty stdin: `cat`, `read` and `rg` without a path see end-of-input at once (after the
		// script itself, when a long command is passed that way).
		child.stdin?.on("error", () => {});
		child.stdin?.end(request.stdin);

		const onChunk = (chunk: Buffer) => {
			if (discarding) return;
			lastActivity = Date.now();
			if (relayChannel) {
				// One line, the relay's pid; nothing else ever comes on the channel.
				if (relayAnnouncement.includes("\n")) return;
				relayAnnouncement += chunk.toString("latin1");
				const newline = relayAnnouncement.indexOf("\n");
				if (newline === -1) return;
				const line = relayAnnouncement.slice(0, newline);
				if (/^\d+$/.test(line)) relayPid = Number(line);
				relayAnnounced();
				return;
			}
			const wait = request.onData?.(chunk);
			if (wait) {
				for (const stream of streams) stream.pause();
				wait.then(
					() => {
						lastActivity = Date.now();
						if (!discarding) for (const stream of streams) stream.resume();
					},
					() => {},
				);
			}
		};
		for (const stream of streams) {
			stream.on("data", onChunk);
			stream.on("error", () => {});
			stream.on("close", () => {
				openStreams--;
				maybeFinish();
			});
		}

		const killTree = () => {
			if (killing || exit || shellExited) return;
			killing = terminateTree(tree, { graceMs: killGraceMs });
			// A shell stuck in the kernel (uninterruptible I/O) may never report its exit: settle anyway.
			void killing.then(() => {
				setTimeout(() => {
					if (!shellExited && !settled) void onExit(null, "SIGKILL");
				}, shellExitFallbackMs).unref();
			});
		};
		const timer = setTimeout(() => {
			if (shellExited) return;
			timedOut = true;
			killTree();
		}, request.timeoutMs);
		const onAbort = () => {
			if (shellExited) return;
			aborted = true;
			killTree();
		};
		if (request.signal?.aborted) onAbort();
		else request.signal?.addEventListener("abort", onAbort, { once: true });

		const finish = () => {
			if (settled || !exit) return;
			settled = true;
			clearTimeout(timer);
			if (drainTimer) clearTimeout(drainTimer);
			request.signal?.removeEventListener("abort", onAbort);
			// Background processes may hold the pipe open: keep it flowing (discarding) so they never
			// block or die of SIGPIPE, without keeping toolbelt alive.
			discarding = true;
			for (const stream of streams) {
				stream.resume();
				(stream as Readable & { unref?: () => void }).unref?.();
			}
			// Through the relay, only the relay writes to the file, and only while its channel is open
			// (background jobs, or an untracked writer, still hold the pipe). With no background job
			// known, stop the relay with toolbelt. Without its pid, the background jobs stand in for it.
			const relayOpen = relayChannel !== undefined && openStreams > 0;
			const outputWriters = !relayOpen ? [] : relayPid !== undefined ? [relayPid] : backgroundPids;
			if (relayOpen && relayPid !== undefined && backgroundPids.length === 0) {
				registerBackgroundRun({ marker, groupId: tree.groupId, rootPid: tree.rootPid, pids: [relayPid] });
			}
			resolve({
				exitCode: exit.code,
				signal: exit.signal,
				timedOut,
				aborted,
				backgroundPids,
				pid: child.pid,
				outputWriters,
			});
		};

		function maybeFinish() {
			if (!exit || settled) return;
			if (openStreams === 0) return finish();
			const now = Date.now();
			if (relayChannel && outputFile !== undefined) {
				const size = outputFileSize(outputFile);
				if (size !== outputSize) {
					outputSize = size;
					lastActivity = now;
				}
			}
			const idle = streams.every((stream) => !stream.isPaused()) && now - lastActivity >= drainIdle;
			if (idle || now >= drainDeadline) return finish();
			if (!drainTimer) {
				drainTimer = setTimeout(
					() => {
						drainTimer = undefined;
						maybeFinish();
					},
					Math.min(drainIdle, 25),
				);
			}
		}

		// Handled once: the real exit, or the fallback after a kill whose exit never came.
		let exitHandled = false;
		const onExit = async (code: number | null, signal: string | null) => {
			if (exitHandled) return;
			exitHandled = true;
			if (killing) await killing;
			if (process.platform !== "win32") {
				// The relay announces its pid as it starts, racing the command: a very short command may
				// exit before the pid is read.
				if (relayChannel) await Promise.race([relayKnown, delay(relayAnnouncementWaitMs)]);
				// Whatever of the tree is still alive now was left running on purpose (`server &`); the
				// relay is toolbelt's own, and is stopped with the run.
				const alive = findTreeProcesses(tree);
				if (relayChannel && relayPid === undefined) relayPid = alive.find(isOutputRelay);
				backgroundPids = alive.filter((pid) => pid !== relayPid);
				if (backgroundPids.length > 0) {
					registerBackgroundRun({ marker, groupId: tree.groupId, rootPid: tree.rootPid, pids: alive });
				}
			}
			if (killing || backgroundPids.length > 0) {
				drainIdle = drainIdleWithBackgroundMs;
				drainDeadline = Date.now() + drainCapWithBackgroundMs;
			} else {
				drainDeadline = Date.now() + drainCapMs;
			}
			exit = { code, signal };
			maybeFinish();
		};
		child.on("exit", (code, signal) => {
			shellExited = true;
			void onExit(code, signal);
		});
		child.on("error", (error) => {
			if (exit || settled) return;
			clearTimeout(timer);
			request.signal?.removeEventListener("abort", onAbort);
			settled = true;
			reject(error);
		});
	});
}

/**
 * Runs shells as local child processes: own process group, marked environment, tree kill. On
 * POSIX it can also point a shell's output straight into a file (`execToFile`).
 */
export const localShellOperations: ShellOperations = {
	exec,
	isDirectory,
	findExecutable,
	...(canRelayOutput ? { execToFile } : {}),
};
