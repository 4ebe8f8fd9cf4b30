import { type ChildProcessByStdio, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { isAbsolute } from "node:path";
import type { Readable, Writable } from "node:stream";

/**
 * A small shell that waits to become the next ripgrep. Starting a process from Node forks the
 * whole Node process, which costs about 1 ms per 30 MB of its memory (3–4 ms for a 100 MB
 * agent), on every search, before ripgrep even starts. A shell that already waits has been forked
 * while an earlier search's ripgrep ran; handed its command, it changes to the folder and
 * `exec`s ripgrep, which then has the same process id, arguments, environment and pipes as
 * one started directly.
 *
 * Only for a local ripgrep binary that already started directly in this process (so a missing
 * binary still fails at start and the walker answers), from a process's second search on (a
 * one-shot process runs one), and where `/bin/sh` exists (not on Windows). The shell waits in
 * `/`, with no open file but its pipes, and ends by itself when this process goes away (its
 * stdin closes). Its stdin is a socket, so no other process can open it through `/proc` to slip
 * in a command of its own.
 */
interface WaitingShell {
	child: ChildProcessByStdio<Writable, Readable, Readable>;
	/** The environment it was started with: a change since (`process.env.HOME = …`) means a fresh start. */
	environment: [string, string | undefined][];
	exited: boolean;
}

/** A ripgrep started from a waiting shell. */
export type StandbyRipgrep = ChildProcessByStdio<Writable, Readable, Readable>;

/**
 * Exit codes of the shell itself, never of ripgrep (which exits 0, 1 or 2): 125 when the folder
 * could not be entered, 126 and 127 when `exec` could not run the binary. The caller then
 * starts ripgrep directly, so that the failure reads as it always did.
 */
export const STANDBY_LAUNCH_FAILED = new Set([125, 126, 127]);

const SHELL = "/bin/sh";
/** Longest launch handed to a waiting shell; a larger one (huge arguments) starts directly. */
const MAX_LAUNCH_BYTES = 128 * 1024;

let waiting: WaitingShell | undefined;
let searches = 0;
let startedFromStandby = 0;
const startedDirectly = new Set<string>();
const shellAvailable = process.platform !== "win32" && existsSync(SHELL);

/** How many ripgrep processes started from a waiting shell in this process (for tests and diagnostics). */
export function ripgrepStandbyStarts(): number {
	return startedFromStandby;
}

function quote(value: string): string {
	return `'${value.replaceAll("'", `'\\''`)}'`;
}

function environmentNow(): [string, string | undefined][] {
	return Object.entries(process.env);
}

function sameEnvironment(started: [string, string | undefined][]): boolean {
	const now = process.env;
	if (Object.keys(now).length !== started.length) return false;
	return started.every(([name, value]) => now[name] === value);
}

/**
 * `/proc/self/…` (a pinned folder) names this process's descriptor; the shell reaches the same
 * one through this process's id.
 */
function folderForShell(cwd: string): string {
	return cwd.startsWith("/proc/self/") ? `/proc/${process.pid}/${cwd.slice("/proc/self/".length)}` : cwd;
}

/**
 * The shell's command: enter the folder, set PWD and OLDPWD as this process has them (the shell's
 * `cd` changed them), and become ripgrep with stdin closed (ripgrep would search a readable stdin).
 */
function launchScript(rgPath: string, args: readonly string[], cwd: string): string | undefined {
	const words = [rgPath, ...args];
	if (words.some((word) => word.includes("\0"))) return undefined;
	const lines = [`cd -- ${quote(folderForShell(cwd))} || exit 125`];
	for (const name of ["PWD", "OLDPWD"]) {
		const value = process.env[name];
		lines.push(value === undefined ? `unset ${name}` : `export ${name}=${quote(value)}`);
	}
	lines.push(`exec ${words.map(quote).join(" ")} </dev/null`);
	const launch = `${lines.join("\n")}\n`;
	return Buffer.byteLength(launch) > MAX_LAUNCH_BYTES ? undefined : launch;
}

function streamsOf(child: WaitingShell["child"]) {
	return [child.stdin, child.stdout, child.stderr];
}

function startShell(): WaitingShell | undefined {
	let child: WaitingShell["child"];
	try {
		child = spawn(SHELL, ["-s"], { cwd: "/", stdio: ["pipe", "pipe", "pipe"], windowsHide: true });
	} catch {
		return undefined;
	}
	const shell: WaitingShell = { child, environment: environmentNow(), exited: false };
	const gone = () => {
		shell.exited = true;
		if (waiting === shell) waiting = undefined;
	};
	child.once("error", gone);
	child.once("exit", gone);
	// Waiting keeps neither this process alive nor a pipe error from surfacing.
	child.unref();
	for (const stream of streamsOf(child)) {
		stream.on("error", () => {});
		(stream as unknown as { unref(): void }).unref();
	}
	return shell;
}

/**
 * Counts a local ripgrep start, and starts the shell for the next one unless one waits already
 * or this is the process's first search. Call it while ripgrep starts up: the fork then overlaps
 * ripgrep's own start instead of delaying a search.
 */
export function prepareRipgrepStandby(): void {
	searches++;
	if (waiting || searches < 2 || !shellAvailable) return;
	waiting = startShell();
}

/** Records that `rgPath` started directly: a waiting shell may run it from now on. */
export function noteRipgrepStarted(rgPath: string): void {
	startedDirectly.add(rgPath);
}

/**
 * Hands the command to the waiting shell and returns it as the ripgrep process, or returns
 * undefined when ripgrep has to start directly (no shell waits, the binary never started
 * directly, the environment changed, an argument a shell cannot carry).
 */
export function startFromStandby(rgPath: string, args: readonly string[], cwd: string): StandbyRipgrep | undefined {
	const shell = waiting;
	if (!shell || shell.exited || !startedDirectly.has(rgPath) || !isAbsolute(cwd)) return undefined;
	const launch = launchScript(rgPath, args, cwd);
	if (launch === undefined) return undefined;
	waiting = undefined;
	if (!sameEnvironment(shell.environment)) {
		shell.child.kill("SIGKILL");
		return undefined;
	}
	shell.child.ref();
	for (const stream of streamsOf(shell.child)) (stream as unknown as { ref(): void }).ref();
	shell.child.stdin.end(launch);
	startedFromStandby++;
	return shell.child;
}
