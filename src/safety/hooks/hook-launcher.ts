import { type ChildProcess, spawn } from "node:child_process";
import {
	accessSync,
	constants as fsConstants,
	lstatSync,
	mkdirSync,
	mkdtempSync,
	openSync,
	readdirSync,
	readFileSync,
	rmSync,
	writeFileSync,
} from "node:fs";
import { Socket } from "node:net";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { pidInUse, singleQuoted } from "../../workspace/index.js";
import { atProcessEnd } from "../../workspace/local/index.js";

// Why a launcher: a hook is a short process, and starting it from Node means a fork of Node, whose
// cost grows with Node's memory (5–13 ms blocked in `spawn` for a 50–230 MB process on the bench VM,
// against ~0.3 ms for a shell's fork). One small `/bin/sh` per process, started with the first hook,
// forks every later hook instead; Node only writes a line to it and reads the hook's output.

/**
 * The launcher's program. Each request is one short line of single-quoted words (a newline inside
 * a word is written as `'"$nl"'`), read back with `eval "set -- …"`, so nothing in it is expanded;
 * it stays short because the shell's `read` takes a pipe one byte per system call:
 * - `fifo ID DIR`: makes DIR's `out` and `err` FIFOs (once per slot); answers `f ID STATUS`.
 * - `run ID DIR`: in a subshell, reads DIR/run (`cwd=…; set -- COUNT NAME=VALUE… FILE ARG…`, one
 *   buffered read), enters the folder, exports exactly the COUNT variables given (the launcher starts
 *   with an empty environment; `cd` adds `PWD`, and `OLDPWD`, which is dropped), then starts FILE
 *   with stdin from DIR/in and stdout and stderr into DIR's FIFOs; answers `p ID PID` once started
 *   and `x ID STATUS` when it ended (STATUS is `$?`), or `e ID` when the folder cannot be entered.
 * The hook's own descriptors are only those three: the launcher's request and answer pipes stay
 * behind. Nothing waits in the main loop, so hooks run side by side.
 */
const LAUNCHER_SCRIPT = `nl='
'
while IFS= read -r line; do
  eval "set -- $line" || continue
  case $1 in
  fifo) mkfifo -m 600 -- "$3/out" "$3/err"; echo "f $2 $?" ;;
  run) id=$2 dir=$3
    {
      . "$dir/run"
      if cd -- "$cwd" 2>/dev/null; then
        unset OLDPWD
        count=$1; shift
        while [ "$count" -gt 0 ]; do export "$1"; shift; count=$((count - 1)); done
        "$@" <"$dir/in" >"$dir/out" 2>"$dir/err" &
        pid=$!; echo "p $id $pid"; wait "$pid"; echo "x $id $?"
      else echo "e $id"; fi
    } & ;;
  esac
done`;

/** A variable the launcher can export exactly: a plain name the shell gives no meaning of its own. */
const EXPORTABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Names a shell may refuse to export or treats specially while it still parses the request. */
const SHELL_OWNED = new Set(["IFS", "PPID", "UID", "EUID", "SHELLOPTS", "BASHOPTS", "OPTIND", "PS4", "ENV", "nl"]);

/** `value` as one word of a request line: single-quoted, a newline written as `'"$nl"'`. */
function requestWord(value: string): string {
	return singleQuoted(value).replaceAll("\n", `'"$nl"'`);
}

/** How a launched hook ended: an exit status, or a reason it never ran. */
export type LaunchedExit = { exitCode: number; signal: null; error?: undefined } | { error: string };

/** One hook started by the launcher. */
export interface LaunchedHook {
	/** The hook's stdout and stderr (FIFOs read by this process). */
	stdout: Socket;
	stderr: Socket;
	/** Settles when the hook's first process has ended (the launcher saw it exit). */
	exit: Promise<LaunchedExit>;
	/** SIGKILLs the hook's first process (`unshare`; its `--kill-child` ends the namespace). */
	kill(): void;
	/** Gives the slot back; call once the hook has ended and its output is read. */
	release(): void;
}

interface Slot {
	dir: string;
	/** What the slot's run file holds now: it is written again only when a hook needs another. */
	run?: string;
}

interface Pending {
	onPid?: (pid: number) => void;
	settle: (answer: { kind: string; value: string | undefined }) => void;
}

/** The running launcher of this process, its free slots and its requests waiting for an answer. */
interface LauncherState {
	child: ChildProcess;
	root: string;
	free: Slot[];
	slots: number;
	pending: Map<string, Pending>;
	running: Set<number>;
	next: number;
}

let current: LauncherState | undefined;

/**
 * The memory file system the slots live in, or undefined where there is none (then hooks are
 * spawned from Node). Why there: a sandbox mounts a fresh `/dev`, so no sandboxed command sees a
 * slot's FIFOs (whose output decides a call) or its run file (what the next hook runs); and each
 * hook writes its stdin into the slot (replacing a small file on this VM's ext4 took ~1.1 ms, on
 * tmpfs ~0.02 ms).
 */
function slotsParent(): string | undefined {
	try {
		accessSync(SHARED_MEMORY, fsConstants.W_OK | fsConstants.X_OK);
		return SHARED_MEMORY;
	} catch {
		return undefined;
	}
}

const SHARED_MEMORY = "/dev/shm";

/** Slot folders are named for their process, so that those of a process that is gone can be found. */
const SLOTS_PREFIX = "toolbelt-hooks-";

/**
 * Removes the slot folders of processes no longer running: a process ended by a signal runs no
 * exit handler, and its folder would stay in memory until the next boot.
 */
function removeAbandonedSlots(parent: string): void {
	let names: string[] = [];
	try {
		names = readdirSync(parent);
	} catch {
		return;
	}
	for (const name of names) {
		if (!name.startsWith(SLOTS_PREFIX)) continue;
		const pid = Number(name.slice(SLOTS_PREFIX.length).split("-")[0]);
		if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || pidInUse(pid)) continue;
		// Only this user's own folders: the memory file system is shared by every user, and root,
		// who could remove anyone's, must not remove a folder another user named like ours.
		if (!ownFolder(join(parent, name))) continue;
		try {
			rmSync(join(parent, name), { recursive: true, force: true });
		} catch {
			// Another user's: theirs to remove.
		}
	}
}

/** True for a real folder (not a link) owned by this process's user. */
function ownFolder(path: string): boolean {
	try {
		const info = lstatSync(path);
		return info.isDirectory() && info.uid === process.getuid?.();
	} catch {
		return false;
	}
}

function startLauncher(parent: string): LauncherState {
	removeAbandonedSlots(parent);
	const root = mkdtempSync(join(parent, `${SLOTS_PREFIX}${process.pid}-`));
	// Its own process group, so a signal to the terminal's group does not stop it mid-hook.
	const child = spawn("/bin/sh", ["-c", LAUNCHER_SCRIPT], {
		cwd: "/",
		env: {},
		stdio: ["pipe", "pipe", "ignore"],
		detached: true,
	});
	const state: LauncherState = { child, root, free: [], slots: 0, pending: new Map(), running: new Set(), next: 0 };
	child.unref();
	(child.stdout as Socket | null)?.unref();
	(child.stdin as Socket | null)?.unref();
	child.stdin?.on("error", () => {});
	createInterface({ input: child.stdout as Socket }).on("line", (line) => onAnswer(state, line));
	// Also at a SIGTERM that ends toolbelt: the launcher and its hooks go with it.
	const cancelAtEnd = atProcessEnd(() => stopLauncher(state, "toolbelt exited"));
	const ended = () => {
		cancelAtEnd();
		stopLauncher(state, "the hook launcher ended");
	};
	child.on("error", ended);
	child.on("exit", ended);
	return state;
}

function onAnswer(state: LauncherState, line: string): void {
	const [kind = "", id = "", value] = line.split(" ");
	const pending = state.pending.get(id);
	if (!pending) return;
	if (kind === "p") {
		pending.onPid?.(Number(value));
		return;
	}
	state.pending.delete(id);
	holdOpen(state);
	pending.settle({ kind, value });
}

/** While an answer is awaited the launcher's pipe keeps this process alive; idle, it does not. */
function holdOpen(state: LauncherState): void {
	const answers = state.child.stdout as Socket | null;
	if (state.pending.size > 0) answers?.ref();
	else answers?.unref();
}

/** Ends the launcher and every hook it still runs; waiting requests fail with `reason`. */
function stopLauncher(state: LauncherState, reason: string): void {
	if (current === state) current = undefined;
	for (const pid of state.running) killHook(pid);
	for (const pending of state.pending.values()) pending.settle({ kind: "error", value: reason });
	state.pending.clear();
	state.child.kill("SIGKILL");
	rmSync(state.root, { recursive: true, force: true });
}

/**
 * SIGKILLs a hook's `unshare` and its child (the namespace's first process, read from `/proc`):
 * `--kill-child` ends that child with `unshare`, but only once the child has asked for it, and a
 * kill at the very start could come before.
 */
function killHook(pid: number): void {
	let children: number[] = [];
	try {
		children = readFileSync(`/proc/${pid}/task/${pid}/children`, "latin1")
			.trim()
			.split(" ")
			.filter(Boolean)
			.map(Number);
	} catch {
		// Gone already, or no such file on this kernel: `--kill-child` still holds.
	}
	killPid(pid);
	for (const child of children) killPid(child);
}

function killPid(pid: number): void {
	try {
		process.kill(pid, "SIGKILL");
	} catch {
		// Gone already.
	}
}

function request(
	state: LauncherState,
	words: readonly string[],
	onPid?: (pid: number) => void,
): Promise<{ kind: string; value: string | undefined }> {
	const id = String(state.next++);
	const [verb = "", ...rest] = words;
	return new Promise((settle) => {
		state.pending.set(id, { onPid, settle });
		holdOpen(state);
		state.child.stdin?.write(`${[verb, id, ...rest].map(requestWord).join(" ")}\n`);
	});
}

async function takeSlot(state: LauncherState): Promise<Slot> {
	const free = state.free.pop();
	if (free) return free;
	const dir = join(state.root, String(state.slots++));
	mkdirSync(dir, { mode: 0o700 });
	const made = await request(state, ["fifo", dir]);
	if (made.kind !== "f" || made.value !== "0") throw new Error(`could not make the hook's pipes (${made.value})`);
	return { dir };
}

/** Opens a FIFO's reading end without waiting for a writer; its end comes once the hook's writers are gone. */
function openReader(path: string): Socket {
	const descriptor = openSync(path, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
	return new Socket({ fd: descriptor, readable: true, writable: false });
}

function exitOf(answer: { kind: string; value: string | undefined }): LaunchedExit {
	if (answer.kind === "e") return { error: "its working directory cannot be entered" };
	if (answer.kind !== "x") return { error: answer.value ?? "the hook launcher failed" };
	// `$?` cannot tell a process killed by signal N from one that exited 128 + N (a hook's shell
	// reports its killed child so): it is taken as the exit code, which the hook's own shell gives.
	return { exitCode: Number(answer.value), signal: null };
}

/**
 * Starts `file args` through the launcher in `cwd` with exactly `env`, `stdin` as its input.
 * Undefined when `env` holds a name the launcher cannot export exactly, or where there is no memory
 * file system for its slots (the caller then spawns the process itself). Rejects when the launcher cannot be started or cannot make the hook's pipes.
 */
export async function launchHook(input: {
	file: string;
	args: readonly string[];
	cwd: string;
	env: Record<string, string | undefined>;
	stdin: string;
}): Promise<LaunchedHook | undefined> {
	const variables: string[] = [];
	for (const [name, value] of Object.entries(input.env)) {
		if (value === undefined) continue;
		if (!EXPORTABLE_NAME.test(name) || SHELL_OWNED.has(name) || value.includes("\0")) return undefined;
		variables.push(`${name}=${value}`);
	}
	if (!current) {
		const parent = slotsParent();
		if (parent === undefined) return undefined;
		current = startLauncher(parent);
	}
	const state = current;
	const slot = await takeSlot(state);
	const words = [String(variables.length), ...variables, input.file, ...input.args];
	writeFileSync(
		join(slot.dir, "run"),
		`cwd=${singleQuoted(input.cwd)}\nset -- ${words.map(singleQuoted).join(" ")}\n`,
		{
			mode: 0o600,
		},
	);
	writeFileSync(join(slot.dir, "in"), input.stdin, { mode: 0o600 });
	const stdout = openReader(join(slot.dir, "out"));
	const stderr = openReader(join(slot.dir, "err"));
	let pid: number | undefined;
	let killed = false;
	const exit = request(state, ["run", slot.dir], (started) => {
		pid = started;
		state.running.add(started);
		if (killed) killHook(started);
	}).then((answer) => {
		if (pid !== undefined) state.running.delete(pid);
		return exitOf(answer);
	});
	let released = false;
	return {
		stdout,
		stderr,
		exit,
		kill: () => {
			killed = true;
			if (pid !== undefined && state.running.has(pid)) killHook(pid);
		},
		release: () => {
			if (released) return;
			released = true;
			stdout.destroy();
			stderr.destroy();
			if (current === state) state.free.push(slot);
		},
	};
}
