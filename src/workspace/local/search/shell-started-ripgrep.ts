import type { ChildProcess } from "node:child_process";
import type { Socket } from "node:net";
import { signalProcess } from "../process/signal.js";

// What the shells that start ripgrep for this process (the launcher, ripgrep-launcher.ts, and a
// pair's shell, ripgrep-pair.ts) share: how a ripgrep one of them started is read, ended and
// reported. Such a ripgrep's output comes on a socket of the shell's, its process id and exit
// status on the shell's control socket.

/** How a ripgrep a shell started ended. */
export interface LaunchedRipgrepEnd {
	/** Its exit code; null when a signal ended it, or when the launcher could not start it. */
	code: number | null;
	/** Its stderr (up to `maxStderr`). */
	stderr: string;
	/** True when the shell could not start ripgrep (see `LAUNCH_FAILED`), or went away before it could say. */
	launchFailed: boolean;
}

/** A ripgrep a shell started. */
export interface LaunchedRipgrep {
	/** ripgrep's output; ends when it exits. */
	stdout: Socket;
	/** Settles once ripgrep exited and its output and stderr closed. */
	finished: Promise<LaunchedRipgrepEnd>;
	/** Ends ripgrep with SIGKILL (as soon as its process id is known); its end is then not asked for. */
	kill(): void;
	/** Its process id once the launcher said it, until it exited. */
	pid(): number | undefined;
}

/**
 * Exit codes of the shell, never of ripgrep (which exits 0, 1 or 2): 125 when the folder could
 * not be entered, 126 and 127 when the binary could not run. With no output, the caller then
 * starts ripgrep directly, so that the failure reads as it always did.
 */
export const LAUNCH_FAILED = new Set([125, 126, 127]);

/** The child's pipe on descriptor `fd`. */
export function socketOf(child: ChildProcess, fd: number): Socket {
	return child.stdio[fd] as Socket;
}

/**
 * Reads a launching shell's control descriptor `fd` into `onText`. Waiting for it keeps neither this
 * process alive nor a socket error from surfacing: a search in progress refs its own pipes.
 */
export function readControlQuietly(child: ChildProcess, fd: number, onText: (text: string) => void): void {
	child.unref();
	for (const stream of child.stdio) {
		const socket = stream as Socket | null;
		socket?.on("error", () => {});
		socket?.unref();
	}
	const control = socketOf(child, fd);
	control.setEncoding("utf8");
	control.on("data", onText);
}

/**
 * A launched ripgrep's stderr, kept up to `max` characters, and `closed`: settles once its stdout
 * and stderr have both closed, so ripgrep (which held them) has exited and its id may be reused.
 */
export function watchEnds(
	stdout: Socket,
	stderr: Socket,
	max: number,
): { stderrText: () => string; closed: Promise<void> } {
	let text = "";
	stderr.setEncoding("utf8");
	stderr.on("data", (chunk: string) => {
		if (text.length < max) text += chunk;
	});
	const closed = (socket: Socket) => new Promise<void>((resolve) => socket.once("close", () => resolve()));
	return { stderrText: () => text, closed: Promise.all([closed(stdout), closed(stderr)]).then(() => undefined) };
}

/** How a launched ripgrep is ended (see `killerOf`). */
export interface RipgrepKiller {
	/** SIGKILL now, or as soon as its process id is known; nothing once it exited. */
	kill(): void;
	/** Its process id, as its shell said it: a kill asked for before lands now. */
	known(pid: number): void;
	/** It exited: its id may be another process's from now on. */
	exited(): void;
	/** True once a kill was asked for before it exited. */
	killed(): boolean;
	/** Its process id once known, until it exited. */
	pid(): number | undefined;
}

/**
 * The kill of a ripgrep a shell started: its process id comes a moment after the start (on the
 * shell's control descriptor), and a search may stop before that. `pid`: the id, where already known.
 */
export function killerOf(pid?: number): RipgrepKiller {
	let known = pid;
	let killed = false;
	let exited = false;
	const kill = () => {
		if (exited) return;
		killed = true;
		if (known !== undefined) signalProcess(known, "SIGKILL");
	};
	return {
		kill,
		known: (received) => {
			known = received;
			if (killed) kill();
		},
		exited: () => {
			exited = true;
		},
		killed: () => killed,
		pid: () => (exited ? undefined : known),
	};
}

/** How a launched ripgrep ended, from the status its shell read (undefined: never known, as for a failed launch). */
export function endOf(status: number | undefined, stderr: string): LaunchedRipgrepEnd {
	if (status === undefined) return { code: null, stderr, launchFailed: true };
	return { code: status < 128 ? status : null, stderr, launchFailed: LAUNCH_FAILED.has(status) };
}
