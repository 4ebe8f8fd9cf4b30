import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { isAbsolute } from "node:path";
import { singleQuoted } from "../../shell/single-quoted.js";
import { launcherRunning } from "./ripgrep-launcher.js";
import { enterFolderLine, restoredVariable, sameEnvironment } from "./ripgrep-launcher-script.js";
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
 * The two ripgreps a path-ordered search may need, from one start of this process: a small shell
 * runs the ordered one (`--sort path`) at once and, only when asked, the every-thread one with the
 * same arguments. A fork of this Node process (its page tables copied, the event loop blocked
 * until the child has exec'd: 5–20 ms, more on a busy machine) is paid once; the shell's own fork
 * of the second costs well under a millisecond. Used for a process's first searches, before the
 * launcher (`ripgrep-launcher.ts`) is ready, which serves later ones with no fork at all.
 *
 * Descriptors of the shell: 0 is asked for the second (a line, or its end: none will be asked
 * for), 1 and 2 are the ordered ripgrep's output and errors, 3 and 4 the every-thread one's, and
 * on 5 the shell says each ripgrep's process id (`P <n> <pid>`, to kill it) and, once it exited,
 * its status (`X <n> <status>`). The shell keeps no copy of a ripgrep's descriptors, so each
 * output ends when its ripgrep exits. When this process goes away, the shell's read ends, and a
 * ripgrep still running ends at its next write, as a directly started one does.
 */
export interface RipgrepPair {
	/** The ordered ripgrep, started with the pair. */
	ordered: LaunchedRipgrep;
	/** Starts the every-thread ripgrep (once; undefined after that, or once the pair was released or its shell went away). */
	startEveryThread(): LaunchedRipgrep | undefined;
	/** No every-thread ripgrep will be asked for: the shell exits once the ordered one ended. */
	release(): void;
}

const SHELL = "/bin/sh";
const CONTROL_FD = 5;
/** The status a shell gives a process SIGKILL ended (128 + 9). */
const SIGKILL_STATUS = 137;
const shellAvailable = process.platform === "linux" && existsSync(SHELL);

/** The first ripgrep's descriptors: its output on the shell's 1 and 2, none of the others. */
const firstRedirections = `</dev/null 3>&- 4>&- ${CONTROL_FD}>&-`;

/**
 * The pair's work once `$1` says what to start first (`pair`: the ordered ripgrep, `single`: ripgrep
 * with its arguments as they are, nothing after it), `$2` is ripgrep and the rest its arguments
 * without `--sort path`.
 */
const pairLines = [
	"first=$1; rg=$2; shift 2",
	`if [ "$first" = single ]; then "$rg" "$@" ${firstRedirections} & else "$rg" --sort path "$@" ${firstRedirections} & fi`,
	"ordered=$!",
	`echo "P 0 $ordered" >&${CONTROL_FD}`,
	"exec 1>&- 2>&-",
	"every=",
	'if read -r go && [ "$go" = go ]; then',
	`"$rg" "$@" </dev/null >&3 2>&4 3>&- 4>&- ${CONTROL_FD}>&- &`,
	"every=$!",
	`echo "P 1 $every" >&${CONTROL_FD}`,
	"fi",
	"exec 3>&- 4>&-",
	`wait "$ordered"; echo "X 0 $?" >&${CONTROL_FD}`,
	`if [ -n "$every" ]; then wait "$every"; echo "X 1 $?" >&${CONTROL_FD}; fi`,
];

/** The script of a shell started for its pair (its arguments: `pair`, ripgrep, ripgrep's arguments without `--sort path`). */
function pairScript(): string {
	// The shell exports PWD as it starts; ripgrep gets this process's environment unchanged.
	return [restoredVariable("PWD"), ...pairLines].join("\n");
}

/**
 * The script of a shell started ahead (`prepareRipgrepPair`): its first line on fd 0 enters the
 * search's folder and sets the arguments (`waitingPairStart`), then it runs the pair. A folder it
 * cannot enter ends it with no status said, which reads as a failed start (the search then starts
 * ripgrep directly, as without it).
 */
const waitingScript = [
	"IFS= read -r toolbelt_start || exit 0",
	'eval "$toolbelt_start"',
	"unset toolbelt_start",
	...pairLines,
].join("\n");

/** True for a folder (links followed), as `cd` would enter it. */
function isFolder(path: string): boolean {
	try {
		return statSync(path).isDirectory();
	} catch {
		return false;
	}
}

/** What a shell started for a search runs first (see `pairLines`). */
type FirstStart = "pair" | "single";

/**
 * The first line a waiting pair's shell reads, or undefined where one line cannot carry it (a
 * newline or NUL in a word, the folder, or PWD or OLDPWD).
 */
function waitingPairStart(first: FirstStart, rgPath: string, args: readonly string[], cwd: string): string | undefined {
	// `cd` sets PWD and OLDPWD: ripgrep gets this process's environment unchanged.
	const lines = [enterFolderLine(cwd), restoredVariable("PWD"), restoredVariable("OLDPWD")];
	const words = [first, rgPath, ...args];
	if (!isAbsolute(cwd) || [...lines, ...words].some((part) => part.includes("\n") || part.includes("\0")))
		return undefined;
	return `${lines.join("; ")}; set -- ${words.map(singleQuoted).join(" ")}\n`;
}

interface PairState {
	child: ChildProcess;
	alive: boolean;
	pids: (number | undefined)[];
	pidWaiters: (((pid: number) => void) | undefined)[];
	statuses: (number | undefined)[];
	statusWaiters: (((status: number | undefined) => void) | undefined)[];
	control: string;
	everyThreadAsked: boolean;
	released: boolean;
}

/** A pair's shell started ahead, waiting for its search (`prepareRipgrepPair`), and the environment it has. */
let waiting: { state: PairState; environment: [string, string | undefined][] } | undefined;

/** Spawns a pair's shell with its six descriptors, or returns undefined where the spawn failed. */
function spawnPairShell(script: string, args: readonly string[], cwd: string): PairState | undefined {
	let child: ChildProcess;
	try {
		child = spawn(SHELL, ["-c", script, "sh", ...args], {
			cwd,
			stdio: ["pipe", "pipe", "pipe", "pipe", "pipe", "pipe"],
			windowsHide: true,
		});
	} catch {
		return undefined;
	}
	if (child.pid === undefined) {
		child.on("error", () => {});
		return undefined;
	}
	const state: PairState = {
		child,
		alive: true,
		pids: [],
		pidWaiters: [],
		statuses: [],
		statusWaiters: [],
		control: "",
		everyThreadAsked: false,
		released: false,
	};
	const gone = () => {
		state.alive = false;
		for (const [index, waiter] of state.statusWaiters.entries()) {
			if (waiter && state.statuses[index] === undefined) waiter(undefined);
		}
	};
	child.once("error", gone);
	child.once("exit", gone);
	readControlQuietly(child, CONTROL_FD, (text) => readControl(state, text));
	return state;
}

/**
 * Starts a pair's shell ahead, to wait for the process's first search (as a search tool is
 * created; a path-ordered one runs its pair, any other ripgrep alone: `startWaitingRipgrep`): that
 * search then writes one line instead of forking this process (5–20 ms, the event loop blocked),
 * and the shell's start runs while nothing waits for it. At most one waits per process; it holds
 * nothing of a search, and ends when this process does (its read ends). Not where no pair can run,
 * nor while one waits or the launcher serves the searches (`ripgrep-launcher.ts`).
 */
export function prepareRipgrepPair(): void {
	if (!shellAvailable || waiting?.state.alive || launcherRunning()) return;
	const state = spawnPairShell(waitingScript, [], "/");
	if (state) waiting = { state, environment: Object.entries(process.env) };
}

/**
 * The waiting pair's shell, handed its search; undefined when there is none, or it cannot serve
 * this one (gone, this process's environment changed since, a word one line cannot carry): such a
 * one is ended. A search whose folder is no folder (gone since the tool looked) leaves it waiting:
 * ripgrep started directly there fails at its start, as it would without the shell.
 */
function takeWaitingPair(
	first: FirstStart,
	rgPath: string,
	args: readonly string[],
	cwd: string,
): PairState | undefined {
	const current = waiting;
	if (!current?.state.alive || !isFolder(cwd)) return undefined;
	waiting = undefined;
	const start = sameEnvironment(current.environment) ? waitingPairStart(first, rgPath, args, cwd) : undefined;
	if (start === undefined) {
		current.state.child.stdin?.end();
		return undefined;
	}
	current.state.child.stdin?.write(start);
	return current.state;
}

/**
 * Starts the pair (see `RipgrepPair`) in `cwd`, or returns undefined where it cannot (no
 * `/bin/sh`, not Linux, the spawn failed). `everyThreadArgs`: ripgrep's arguments without `--sort path`.
 * A shell started ahead (`prepareRipgrepPair`) runs it where it can.
 */
export function startRipgrepPair(options: {
	rgPath: string;
	everyThreadArgs: readonly string[];
	cwd: string;
	maxStderr: number;
}): RipgrepPair | undefined {
	if (!shellAvailable) return undefined;
	const state =
		takeWaitingPair("pair", options.rgPath, options.everyThreadArgs, options.cwd) ??
		spawnPairShell(pairScript(), ["pair", options.rgPath, ...options.everyThreadArgs], options.cwd);
	if (state === undefined) return undefined;
	const { child } = state;
	const release = releaser(state);
	return {
		ordered: watch(state, 0, options.maxStderr, release),
		startEveryThread: () => {
			if (state.everyThreadAsked || state.released || !state.alive) return undefined;
			state.everyThreadAsked = true;
			const run = watch(state, 1, options.maxStderr, release);
			child.stdin?.write("go\n");
			release();
			return run;
		},
		release,
	};
}

/**
 * Starts ripgrep with `args` as they are in the shell started ahead (`prepareRipgrepPair`), read as
 * a launched one; undefined where there is none or it cannot serve this search (see
 * `takeWaitingPair`): the caller then starts ripgrep itself. For a search that needs no partner (a
 * file, a listing, an every-thread search), so that a process's first search of any kind forks nothing.
 */
export function startWaitingRipgrep(options: {
	rgPath: string;
	args: readonly string[];
	cwd: string;
	maxStderr: number;
}): LaunchedRipgrep | undefined {
	const state = takeWaitingPair("single", options.rgPath, options.args, options.cwd);
	if (state === undefined) return undefined;
	const release = releaser(state);
	// No partner will be asked for: the shell says the status once ripgrep ended.
	release();
	return watch(state, 0, options.maxStderr, release);
}

/** Says to the shell that no every-thread ripgrep will be asked for (its stdin ends), once. */
function releaser(state: PairState): () => void {
	return () => {
		if (state.released) return;
		state.released = true;
		state.child.stdin?.end();
	};
}

/** The control socket keeps this process alive only while a status is awaited. */
function holdControl(state: PairState): void {
	const control = socketOf(state.child, CONTROL_FD);
	if (state.statusWaiters.some((waiter) => waiter !== undefined)) control.ref();
	else control.unref();
}

function readControl(state: PairState, text: string): void {
	const lines = (state.control + text).split("\n");
	state.control = lines.pop() ?? "";
	for (const line of lines) {
		const [kind, indexText, value] = line.split(" ");
		const index = Number(indexText);
		if ((index !== 0 && index !== 1) || value === undefined || !/^\d+$/.test(value)) continue;
		if (kind === "P") {
			state.pids[index] = Number(value);
			state.pidWaiters[index]?.(Number(value));
		} else if (kind === "X") {
			state.statuses[index] = Number(value);
			state.statusWaiters[index]?.(Number(value));
		}
	}
}

/** One ripgrep of the pair, read as a launched one (see `LaunchedRipgrep`). */
function watch(state: PairState, index: 0 | 1, maxStderr: number, release: () => void): LaunchedRipgrep {
	const stdout = socketOf(state.child, 1 + 2 * index);
	const stderr = socketOf(state.child, 2 + 2 * index);
	// A search in progress keeps this process alive, as a child's pipes do.
	stdout.ref();
	stderr.ref();
	const killer = killerOf(state.pids[index]);
	state.pidWaiters[index] = killer.known;
	const kill = () => {
		// Stopped early: the search is answered, or its every-thread ripgrep was started before.
		if (index === 0) release();
		killer.kill();
	};
	const ends = watchEnds(stdout, stderr, maxStderr);
	const finished = ends.closed.then(
		() =>
			new Promise<LaunchedRipgrepEnd>((resolve) => {
				// Both ends closed: ripgrep has exited, and its id may be reused.
				killer.exited();
				// The ordered ripgrep ended: its lines are the answer, no every-thread one is asked for
				// (and the shell says its status only once it knows that).
				if (index === 0) release();
				const end = (status: number | undefined) => {
					state.statusWaiters[index] = undefined;
					holdControl(state);
					resolve(endOf(status, ends.stderrText()));
				};
				if (killer.killed()) end(SIGKILL_STATUS);
				else if (state.statuses[index] !== undefined) end(state.statuses[index]);
				else if (!state.alive) end(undefined);
				else {
					state.statusWaiters[index] = end;
					holdControl(state);
				}
			}),
	);
	return { stdout, finished, kill, pid: killer.pid };
}
