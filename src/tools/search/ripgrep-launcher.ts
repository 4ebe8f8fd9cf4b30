import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, constants, existsSync, statSync } from "node:fs";
import type { Socket } from "node:net";
import { isAbsolute } from "node:path";

/**
 * A small shell that starts ripgrep for this process, so that a search forks the shell (a few
 * MB) instead of this Node process: a fork copies the parent's page tables, about 1 ms per
 * 30 MB of memory, so 3–4 ms of a 100 MB agent's every search, with the event loop blocked.
 *
 * The launcher is started with `CHANNELS` pairs of sockets; each search takes one pair as
 * ripgrep's stdout and stderr (every other channel closed in ripgrep), so the output ends when
 * ripgrep exits, as a directly started one's does. A waiting subshell per search reports
 * ripgrep's process id (to kill it, on a control socket ripgrep cannot write to) and, as the
 * last line of its stderr, its exit status. Used up, the launcher exits and the next one starts
 * while a search's ripgrep runs.
 *
 * Only for a local ripgrep binary that already started directly in this process (so a missing
 * binary still fails at start and the walker answers), from a process's second search on (a
 * one-shot process runs one), on Linux where bash exists. The launcher's sockets
 * cannot be opened through `/proc` by another process, and it exits by itself when this process
 * goes away (its stdin closes). ripgrep's environment is this process's, less what would change
 * how bash itself starts (`BASH_ENV`, `SHELLOPTS`, `TMOUT`, exported functions), with bash's `_` (the
 * command's path), and with `SHLVL=0` where this process has no SHLVL: none of which ripgrep reads.
 */
interface Launcher {
	child: ChildProcess;
	/** The environment it was started with: a change since (`process.env.HOME = …`) means a fresh start. */
	environment: [string, string | undefined][];
	nextChannel: number;
	/** Runs waiting for their ripgrep's process id, by run id. */
	waitingForPid: Map<number, (pid: number) => void>;
	/** The control socket's unfinished line. */
	control: string;
}

/** How a ripgrep started by the launcher ended. */
export interface LaunchedRipgrepEnd {
	/** Its exit code; null when a signal ended it, or when the launcher could not start it. */
	code: number | null;
	/** Its stderr (up to `maxStderr`). */
	stderr: string;
	/** True when the shell could not start ripgrep (see `LAUNCH_FAILED`), or went away before it could say. */
	launchFailed: boolean;
}

/** A ripgrep started by the launcher. */
export interface LaunchedRipgrep {
	/** ripgrep's output; ends when it exits. */
	stdout: Socket;
	/** Settles once ripgrep exited and its output and stderr closed. */
	finished: Promise<LaunchedRipgrepEnd>;
	/** Ends ripgrep with SIGKILL (as soon as its process id is known). */
	kill(): void;
}

/**
 * Exit codes of the shell, never of ripgrep (which exits 0, 1 or 2): 125 when the folder could
 * not be entered, 126 and 127 when the binary could not run. With no output, the caller then
 * starts ripgrep directly, so that the failure reads as it always did.
 */
export const LAUNCH_FAILED = new Set([125, 126, 127]);

const SHELL = "/bin/bash";
const CHANNELS = 16;
const CONTROL_FD = 3;
const FIRST_CHANNEL_FD = 4;
/** Longest launch handed to the launcher; a larger one (huge arguments) starts directly. */
const MAX_LAUNCH_BYTES = 128 * 1024;
const STATUS = /\ntoolbelt-exit (\d+)\n$/;

let launcher: Launcher | undefined;
let searches = 0;
let runs = 0;
let launched = 0;
const startedDirectly = new Set<string>();
// Linux only: there libuv starts a process with fork; on macOS it uses posix_spawn, which copies
// no page tables (and its bash 3.2 has no `read -N`).
const shellAvailable = process.platform === "linux" && existsSync(SHELL);

/** How many ripgrep processes the launcher started in this process (for tests and diagnostics). */
export function ripgrepLaunches(): number {
	return launched;
}

function quote(value: string): string {
	return `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * Reads each launch (its length in bytes on one line, then the script, read in one go: `read -N`
 * reads a socket in chunks where other forms read byte by byte; LC_ALL=C makes characters bytes).
 */
const LAUNCHER_SCRIPT = [
	"set +o posix",
	"LC_ALL=C",
	"while IFS= read -r toolbelt_bytes; do",
	'\tcase "$toolbelt_bytes" in "" | *[!0-9]*) exit 0 ;; esac',
	'\tIFS= read -r -N "$toolbelt_bytes" toolbelt_launch || exit 0',
	'\teval "$toolbelt_launch"',
	"done",
].join("\n");

/** The launcher's environment: this process's, without what would change how bash itself starts. */
function launcherEnvironment(): NodeJS.ProcessEnv {
	const environment: NodeJS.ProcessEnv = {};
	for (const [name, value] of Object.entries(process.env)) {
		// TMOUT would end the launcher's `read` after that many seconds.
		if (["BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "TMOUT"].includes(name)) continue;
		if (name.startsWith("BASH_FUNC_")) continue;
		environment[name] = value;
	}
	return environment;
}

function sameEnvironment(started: [string, string | undefined][]): boolean {
	const now = process.env;
	if (Object.keys(now).length !== started.length) return false;
	return started.every(([name, value]) => now[name] === value);
}

/** `/proc/self/…` (a pinned folder) names this process's descriptor; the shell reaches it through this process's id. */
function folderForShell(cwd: string): string {
	return cwd.startsWith("/proc/self/") ? `/proc/${process.pid}/${cwd.slice("/proc/self/".length)}` : cwd;
}

/**
 * Variables the shell changed (`cd`, the launcher's C locale), set back as this process has them.
 * (SHLVL needs nothing: bash counts it back down as it starts ripgrep.)
 */
function restoredVariables(): string[] {
	return ["PWD", "OLDPWD", "LC_ALL"].map((name) => {
		const value = process.env[name];
		return value === undefined ? `unset ${name}` : `export ${name}=${quote(value)}`;
	});
}

/**
 * One search: a subshell enters the folder and starts ripgrep on channel `channel` (stdin
 * /dev/null, every other channel and the control socket closed), reports its process id, waits
 * for it and writes its exit status as the last line of stderr.
 */
function launchScript(run: { id: number; channel: number; rgPath: string; args: readonly string[]; cwd: string }) {
	const words = [run.rgPath, ...run.args];
	if (words.some((word) => word.includes("\0"))) return undefined;
	const out = FIRST_CHANNEL_FD + 2 * run.channel;
	const err = out + 1;
	const others: string[] = [];
	for (let channel = 0; channel < CHANNELS; channel++) {
		if (channel === run.channel) continue;
		const fd = FIRST_CHANNEL_FD + 2 * channel;
		others.push(`${fd}>&-`, `${fd + 1}>&-`);
	}
	const launch = [
		"(",
		`exec 0</dev/null ${others.join(" ")}`,
		`cd -- ${quote(folderForShell(run.cwd))} 2>/dev/null || { printf '\\ntoolbelt-exit 125\\n' >&${err}; exit 0; }`,
		...restoredVariables(),
		`${words.map(quote).join(" ")} >&${out} 2>&${err} ${out}>&- ${err}>&- ${CONTROL_FD}>&- &`,
		`printf 'P ${run.id} %s\\n' "$!" >&${CONTROL_FD}`,
		`exec ${out}>&- ${CONTROL_FD}>&-`,
		'wait "$!"',
		`printf '\\ntoolbelt-exit %s\\n' "$?" >&${err}`,
		") &",
		`exec ${out}>&- ${err}>&-`,
		"",
	].join("\n");
	return Buffer.byteLength(launch) > MAX_LAUNCH_BYTES ? undefined : launch;
}

/**
 * True while the binary is still a runnable file. A direct start of one that went away fails at
 * start, and the walker answers; through the launcher it would fail only once searching.
 */
function stillRunnable(rgPath: string): boolean {
	try {
		accessSync(rgPath, constants.X_OK);
		return statSync(rgPath).isFile();
	} catch {
		return false;
	}
}

function socketOf(child: ChildProcess, fd: number): Socket {
	return child.stdio[fd] as Socket;
}

function readControl(current: Launcher, text: string): void {
	const lines = (current.control + text).split("\n");
	current.control = lines.pop() ?? "";
	for (const line of lines) {
		const [kind, id, pid] = line.split(" ");
		if (kind !== "P") continue;
		const receive = current.waitingForPid.get(Number(id));
		current.waitingForPid.delete(Number(id));
		if (pid !== undefined && /^\d+$/.test(pid)) receive?.(Number(pid));
	}
}

function startLauncher(): Launcher | undefined {
	let child: ChildProcess;
	try {
		child = spawn(SHELL, ["--norc", "--noprofile", "-c", LAUNCHER_SCRIPT], {
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
		waitingForPid: new Map(),
		control: "",
	};
	const gone = () => {
		if (launcher === started) retire(started);
	};
	child.once("error", gone);
	child.once("exit", gone);
	// Waiting keeps neither this process alive nor a socket error from surfacing.
	child.unref();
	for (const stream of child.stdio) {
		const socket = stream as Socket | null;
		socket?.on("error", () => {});
		socket?.unref();
	}
	const control = socketOf(child, CONTROL_FD);
	control.setEncoding("utf8");
	control.on("data", (text: string) => readControl(started, text));
	return started;
}

/** Ends the launcher once its launches are read (it exits at the end of its stdin). */
function retire(current: Launcher): void {
	if (launcher === current) launcher = undefined;
	current.child.stdin?.end();
	for (let channel = current.nextChannel; channel < CHANNELS; channel++) {
		socketOf(current.child, FIRST_CHANNEL_FD + 2 * channel).destroy();
		socketOf(current.child, FIRST_CHANNEL_FD + 2 * channel + 1).destroy();
	}
	current.nextChannel = CHANNELS;
}

/**
 * Counts a local ripgrep start, and starts the launcher for the next ones unless one is ready or
 * this is the process's first search. Call it while ripgrep starts up: the fork then overlaps
 * ripgrep's own start.
 */
export function prepareRipgrepLauncher(): void {
	searches++;
	if (searches < 2 || !shellAvailable) return;
	if (launcher && !sameEnvironment(launcher.environment)) retire(launcher);
	launcher ??= startLauncher();
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
	const id = ++runs;
	const channel = current.nextChannel;
	const launch = launchScript({ id, channel, ...options });
	if (launch === undefined) return undefined;
	current.nextChannel++;
	const stdout = socketOf(current.child, FIRST_CHANNEL_FD + 2 * channel);
	const stderr = socketOf(current.child, FIRST_CHANNEL_FD + 2 * channel + 1);
	const run = watchRun({ current, id, stdout, stderr, maxStderr: options.maxStderr });
	current.child.stdin?.write(`${Buffer.byteLength(launch)}\n${launch}`);
	if (current.nextChannel === CHANNELS) retire(current);
	launched++;
	return run;
}

function watchRun(run: {
	current: Launcher;
	id: number;
	stdout: Socket;
	stderr: Socket;
	maxStderr: number;
}): LaunchedRipgrep {
	const { stdout, stderr } = run;
	// A search in progress keeps this process alive, as a child's pipes do.
	stdout.ref();
	stderr.ref();
	let pid: number | undefined;
	let killWanted = false;
	let done = false;
	const kill = () => {
		if (done) return;
		if (pid === undefined) killWanted = true;
		else {
			try {
				process.kill(pid, "SIGKILL");
			} catch {
				// exited already
			}
		}
	};
	run.current.waitingForPid.set(run.id, (received) => {
		pid = received;
		if (killWanted) kill();
	});
	let text = "";
	let tail = "";
	stderr.setEncoding("utf8");
	stderr.on("data", (chunk: string) => {
		if (text.length < run.maxStderr) text += chunk;
		tail = (tail + chunk).slice(-64);
	});
	const closed = (socket: Socket) => new Promise<void>((resolve) => socket.once("close", () => resolve()));
	const finished = Promise.all([closed(stdout), closed(stderr)]).then((): LaunchedRipgrepEnd => {
		done = true;
		run.current.waitingForPid.delete(run.id);
		const status = STATUS.exec(tail);
		if (!status) return { code: null, stderr: text, launchFailed: true };
		const code = Number(status[1]);
		// The status line is the last thing written (after ripgrep exited), so it ends the text,
		// unless the text was cut at maxStderr before it.
		const own = text.endsWith(status[0]) ? text.slice(0, -status[0].length) : text;
		return { code: code < 128 ? code : null, stderr: own, launchFailed: LAUNCH_FAILED.has(code) };
	});
	return { stdout, finished, kill };
}
