import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, constants, existsSync, statSync } from "node:fs";
import { isAbsolute } from "node:path";
import {
	CHANNELS,
	CONTROL_FD,
	errFd,
	framed,
	launcherEnvironment,
	launcherScript,
	launchScript,
	outFd,
	sameEnvironment,
} from "./ripgrep-launcher-script.js";
import {
	endOf,
	killerOf,
	type LaunchedRipgrep,
	type LaunchedRipgrepEnd,
	readControlQuietly,
	socketOf,
	watchEnds,
} from "./shell-started-ripgrep.js";

/**
 * Shells that wait to become this process's next ripgreps, so that a search forks nothing: a
 * fork of this Node process copies its page tables, about 1 ms per 30 MB of its memory (3–4 ms
 * of a 100 MB agent's every search, the event loop blocked), where handing a waiting shell its
 * command costs one write.
 *
 * The launcher (bash) starts with `CHANNELS` pairs of sockets and forks one subshell per pair,
 * which closes every other channel and the control socket and waits to read its command on its
 * own pair; given it, it enters the folder and becomes ripgrep with the pair as stdout and
 * stderr, so the output ends when ripgrep exits, as a directly started one's does. The launcher
 * says each subshell's process id (ripgrep's, once it became it: to kill it) on a control socket
 * ripgrep cannot write to and, asked once the output ended, its exit status. Used up, a launcher
 * exits once its last search is done, and the next one is started while a search's ripgrep runs.
 *
 * Only for a local ripgrep binary that already started directly in this process (so a missing
 * binary still fails at start and the walker answers), from a process's second search on (a
 * one-shot process runs one), on Linux where bash exists. The sockets cannot be opened through
 * `/proc` by another process; the shells exit by themselves when this process goes away (their
 * sockets close). ripgrep's environment is this process's, less what would change how bash itself
 * starts (`BASH_ENV`, `SHELLOPTS`, `TMOUT`, exported functions) and with bash's `_` (the command's
 * path): none of which ripgrep reads.
 */
interface Launcher {
	child: ChildProcess;
	/** The environment it was started with: a change since (`process.env.HOME = …`) means a fresh start. */
	environment: [string, string | undefined][];
	nextChannel: number;
	/** False once the launcher exited. */
	alive: boolean;
	/** Process ids of the waiting subshells, by channel, as the launcher says them. */
	pids: Map<number, number>;
	/** Searches waiting for their subshell's process id, by channel. */
	waitingForPid: Map<number, (pid: number) => void>;
	/** Searches waiting for their exit status, by channel (undefined: the launcher went away). */
	waitingForStatus: Map<number, (status: number | undefined) => void>;
	/** Channels in use: their output open, or their exit status asked for. */
	pending: Set<number>;
	/** The control socket's unfinished line. */
	control: string;
}

const SHELL = "/bin/bash";
/** The status bash gives a process SIGKILL ended (128 + 9). */
const SIGKILL_STATUS = 137;

let launcher: Launcher | undefined;
let searches = 0;
/** Local ripgrep runs started (`prepareRipgrepLauncher`) whose process has not ended yet. */
let runsUnderway = 0;
let launched = 0;
const startedDirectly = new Set<string>();
// Linux only: there libuv starts a process with fork; on macOS it uses posix_spawn, which copies
// no page tables (and its bash 3.2 has no `read -N`).
const shellAvailable = process.platform === "linux" && existsSync(SHELL);

/** How many ripgrep processes the launcher started in this process (for tests and diagnostics). */
export function ripgrepLaunches(): number {
	return launched;
}

/**
 * True while the binary is still a runnable file. A direct start of one that went away fails at
 * start, and the walker answers; through the launcher it would fail only once searching.
 */
export function stillRunnable(rgPath: string): boolean {
	try {
		accessSync(rgPath, constants.X_OK);
		return statSync(rgPath).isFile();
	} catch {
		return false;
	}
}

function readControl(current: Launcher, text: string): void {
	const lines = (current.control + text).split("\n");
	current.control = lines.pop() ?? "";
	for (const line of lines) {
		const [kind, channelText, value] = line.split(" ");
		const channel = Number(channelText);
		if (value === undefined || !/^\d+$/.test(value)) continue;
		if (kind === "P") {
			current.pids.set(channel, Number(value));
			current.waitingForPid.get(channel)?.(Number(value));
			current.waitingForPid.delete(channel);
		} else if (kind === "X") {
			current.waitingForStatus.get(channel)?.(Number(value));
		}
	}
}

/** The control socket keeps this process alive only while an exit status is awaited. */
function holdControl(current: Launcher): void {
	const control = socketOf(current.child, CONTROL_FD);
	if (current.waitingForStatus.size > 0) control.ref();
	else control.unref();
}

/** A search is done: a used-up launcher with none left is told to exit (at the end of its stdin). */
function release(current: Launcher, channel: number): void {
	current.pending.delete(channel);
	current.waitingForStatus.delete(channel);
	holdControl(current);
	if (current.nextChannel === CHANNELS && current.pending.size === 0) current.child.stdin?.end();
}

/** Takes no more searches: the waiting subshells left see their channel close and exit. */
function retire(current: Launcher): void {
	if (launcher === current) launcher = undefined;
	for (let channel = current.nextChannel; channel < CHANNELS; channel++) {
		socketOf(current.child, outFd(channel)).destroy();
		socketOf(current.child, errFd(channel)).destroy();
	}
	current.nextChannel = CHANNELS;
	if (current.pending.size === 0) current.child.stdin?.end();
}

function startLauncher(): Launcher | undefined {
	let child: ChildProcess;
	try {
		child = spawn(SHELL, ["--norc", "--noprofile", "-c", launcherScript()], {
			cwd: "/",
			env: launcherEnvironment(),
			stdio: ["pipe", "ignore", "ignore", ...new Array<"pipe">(1 + 2 * CHANNELS).fill("pipe")],
			windowsHide: true,
		});
	} catch {
		return undefined;
	}
	const started: Launcher = {
		child,
		environment: Object.entries(process.env),
		nextChannel: 0,
		alive: true,
		pids: new Map(),
		waitingForPid: new Map(),
		waitingForStatus: new Map(),
		pending: new Set(),
		control: "",
	};
	const gone = () => {
		started.alive = false;
		retire(started);
		for (const receive of [...started.waitingForStatus.values()]) receive(undefined);
	};
	child.once("error", gone);
	child.once("exit", gone);
	readControlQuietly(child, CONTROL_FD, (text) => readControl(started, text));
	return started;
}

/** Starts the launcher unless one runs for this process's environment (one for another is retired). */
function ensureLauncher(): void {
	if (launcher && !sameEnvironment(launcher.environment)) retire(launcher);
	launcher ??= startLauncher();
}

/**
 * Counts a local ripgrep start (and its run, until `ripgrepRunEnded`), and starts the launcher for
 * the next ones unless one is ready or this is the process's first search. Call it while ripgrep
 * starts up: the fork then overlaps ripgrep's own start. `count` false: a ripgrep started beside
 * another of the same search, which only replaces a launcher it used up.
 */
export function prepareRipgrepLauncher(count = true): void {
	runsUnderway++;
	if (count) searches++;
	if (searches < 2 || !shellAvailable) return;
	ensureLauncher();
}

/**
 * How long after a search ended with no other begun the launcher starts for the next one: longer
 * than a program takes to make its next call, shorter than a model's reply.
 */
const launcherAfterSearchMs = 50;

/**
 * As a local ripgrep run (one `prepareRipgrepLauncher` counted) ends: starts the launcher once
 * `launcherAfterSearchMs` passed with no search begun and no ripgrep running, unless one runs
 * already. A process's first search prepares none as it runs (a one-shot call would pay a shell's
 * start for nothing); without this, its second search then forked this process twice, for its own
 * ripgrep and for the launcher. Started here, the fork falls in the pause while a model writes its
 * next call, which then comes from the launcher. Not while a search's other ripgrep still runs (the
 * every-thread one of a pair): the fork would land inside that search. Calls made one after another
 * start it in their second search, as before, and a process that exits after its search is not
 * held up (the timer keeps nothing alive).
 */
export function ripgrepRunEnded(): void {
	runsUnderway = Math.max(0, runsUnderway - 1);
	if (!shellAvailable || runsUnderway > 0 || (launcher && sameEnvironment(launcher.environment))) return;
	const begun = searches;
	setTimeout(() => {
		if (searches === begun && runsUnderway === 0) ensureLauncher();
	}, launcherAfterSearchMs).unref();
}

/** True once the launcher was started and has not been retired: later searches will not fork this process. */
export function launcherRunning(): boolean {
	return launcher?.alive === true;
}

/** True when the launcher would start `rgPath` now (see `launchRipgrep`), with no fork of this process. */
export function launcherReady(rgPath: string): boolean {
	return launcher !== undefined && startedDirectly.has(rgPath) && sameEnvironment(launcher.environment);
}

/** Records that `rgPath` started directly: the launcher may run it from now on. */
export function noteRipgrepStarted(rgPath: string): void {
	startedDirectly.add(rgPath);
}

/**
 * Starts ripgrep through the launcher, or returns undefined when it has to start directly (no
 * launcher ready, the binary never started directly, the environment changed, an argument a
 * shell cannot carry). `maxStderr`: the most stderr kept.
 */
export function launchRipgrep(options: {
	rgPath: string;
	args: readonly string[];
	cwd: string;
	maxStderr: number;
}): LaunchedRipgrep | undefined {
	const current = launcher;
	if (!current || !startedDirectly.has(options.rgPath) || !isAbsolute(options.cwd)) return undefined;
	if (!stillRunnable(options.rgPath)) return undefined;
	if (!sameEnvironment(current.environment)) {
		retire(current);
		return undefined;
	}
	const channel = current.nextChannel;
	const launch = launchScript(channel, options.rgPath, options.args, options.cwd);
	if (launch === undefined) return undefined;
	current.nextChannel++;
	current.pending.add(channel);
	const run = watchRun(current, channel, options.maxStderr);
	socketOf(current.child, errFd(channel)).write(framed(launch));
	if (current.nextChannel === CHANNELS) retire(current);
	launched++;
	return run;
}

function watchRun(current: Launcher, channel: number, maxStderr: number): LaunchedRipgrep {
	const stdout = socketOf(current.child, outFd(channel));
	const stderr = socketOf(current.child, errFd(channel));
	// A search in progress keeps this process alive, as a child's pipes do.
	stdout.ref();
	stderr.ref();
	const killer = killerOf(current.pids.get(channel));
	if (killer.pid() === undefined) current.waitingForPid.set(channel, killer.known);
	const ends = watchEnds(stdout, stderr, maxStderr);
	const finished = ends.closed.then(
		() =>
			new Promise<LaunchedRipgrepEnd>((resolve) => {
				// Both ends closed: ripgrep (which held them) has exited, and its id may be reused.
				const pid = killer.pid();
				killer.exited();
				current.waitingForPid.delete(channel);
				const end = (status: number | undefined) => {
					release(current, channel);
					resolve(endOf(status, ends.stderrText()));
				};
				// Killed (the search stopped early): nobody asks how it ended.
				if (killer.killed()) end(SIGKILL_STATUS);
				else if (pid === undefined || !current.alive) end(undefined);
				else {
					current.waitingForStatus.set(channel, end);
					holdControl(current);
					current.child.stdin?.write(framed(`wait ${pid}\nprintf 'X ${channel} %s\\n' "$?" >&${CONTROL_FD}\n`));
				}
			}),
	);
	return { stdout, finished, kill: killer.kill, pid: killer.pid };
}
