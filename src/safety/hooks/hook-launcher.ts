import { type ChildProcess, spawn } from "node:child_process";
import {
	constants as fsConstants,
	mkdirSync,
	mkdtempSync,
	openSync,
	readFileSync,
	rmSync,
	writeFileSync,
} from "node:fs";
import { Socket } from "node:net";
import { join } from "node:path";
import { singleQuoted } from "../../workspace/index.js";
import { atProcessEnd, signalChild, signalProcess, stopProcess } from "../../workspace/local/index.js";
import { HOOK_CAPTURE_BYTES } from "./hook-output.js";
import { removeAbandonedSlots, SLOTS_PREFIX, slotsParent } from "./hook-slots.js";
import { type LauncherKind, launcherKind, launcherProgram } from "./launcher-programs.js";

// Why a launcher: a hook is a short process, and starting it from Node means a fork of Node, whose
// cost grows with Node's memory (5–13 ms blocked in `spawn` for a 50–230 MB process on the bench VM,
// against ~0.3 ms for a small program's fork). One launcher per process (Perl, else `/bin/sh`: see
// `launcher-programs.ts`), started with the first hook, forks every later hook instead; Node only
// writes a request to it and reads the hook's output.

/** A variable the shell launcher can export exactly: a plain name the shell gives no meaning of its own. */
const EXPORTABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Names a shell may refuse to export or treats specially while it still parses the request. */
const SHELL_OWNED = new Set(["IFS", "PPID", "UID", "EUID", "SHELLOPTS", "BASHOPTS", "OPTIND", "PS4", "ENV", "nl"]);

/** `value` as one word of a shell launcher's request line: single-quoted, a newline written as `'"$nl"'`. */
function requestWord(value: string): string {
	return singleQuoted(value).replaceAll("\n", `'"$nl"'`);
}

/** How a launched hook ended: an exit status (and, from the Perl launcher, its output), or a reason it never ran. */
export type LaunchedExit =
	| { exitCode: number; signal: null; output?: { stdout: Buffer; stderr: Buffer }; error?: undefined }
	| {
			error: string /** The launcher failed before the hook started: it may be spawned another way. */;
			notStarted?: boolean;
	  };

/** One hook started by the launcher. */
export interface LaunchedHook {
	/** The hook's stdout and stderr as they come (FIFOs, from the shell launcher); else its output is in `exit`. */
	stdout?: Socket;
	stderr?: Socket;
	/** Settles when the hook's first process has ended (the launcher saw it exit). */
	exit: Promise<LaunchedExit>;
	/** SIGKILLs the hook's first process (which ends its namespace). */
	kill(): void;
	/** Gives the slot back; call once the hook has ended and its output is read. */
	release(): void;
}

interface Slot {
	dir: string;
}

/** An answer of the launcher: its kind (`p`, `x`, …) and the words after the request's id. */
interface Answer {
	kind: string;
	values: string[];
}

interface Pending {
	onPid?: (pid: number) => void;
	settle: (answer: Answer) => void;
}

/** A running launcher of this process, its free slots and its requests waiting for an answer. */
interface LauncherState {
	kind: LauncherKind;
	child: ChildProcess;
	root: string;
	free: Slot[];
	slots: number;
	pending: Map<string, Pending>;
	running: Set<number>;
	next: number;
}

const launchers = new Map<LauncherKind, LauncherState>();
/** Set once a Perl launcher died or could not start a hook: later hooks of this process take the shell one. */
let perlFailed = false;

function startLauncher(kind: LauncherKind, parent: string): LauncherState {
	removeAbandonedSlots(parent);
	const root = mkdtempSync(join(parent, `${SLOTS_PREFIX}${process.pid}-`));
	const program = launcherProgram(kind, HOOK_CAPTURE_BYTES);
	// Its own process group, so a signal to the terminal's group does not stop it mid-hook.
	const child = spawn(program.file, program.args, {
		cwd: "/",
		env: {},
		stdio: ["pipe", "pipe", "ignore"],
		detached: true,
	});
	const state: LauncherState = {
		kind,
		child,
		root,
		free: [],
		slots: 0,
		pending: new Map(),
		running: new Set(),
		next: 0,
	};
	child.unref();
	(child.stdout as Socket | null)?.unref();
	(child.stdin as Socket | null)?.unref();
	child.stdin?.on("error", () => {});
	readAnswers(state);
	// Also at a SIGTERM that ends toolbelt: the launcher and its hooks go with it.
	const cancelAtEnd = atProcessEnd(() => stopLauncher(state, "toolbelt exited"));
	const ended = () => {
		cancelAtEnd();
		stopLauncher(state, "the hook launcher ended", true);
	};
	child.on("error", ended);
	child.on("exit", ended);
	return state;
}

/** Splits the launcher's output into answer lines (each written whole, with one `write`). */
function readAnswers(state: LauncherState): void {
	let partial = "";
	state.child.stdout?.setEncoding("latin1");
	state.child.stdout?.on("data", (chunk: string) => {
		const lines = (partial + chunk).split("\n");
		partial = lines.pop() ?? "";
		for (const line of lines) onAnswer(state, line);
	});
}

function onAnswer(state: LauncherState, line: string): void {
	const [kind = "", id = "", ...values] = line.split(" ");
	const pending = state.pending.get(id);
	if (!pending) return;
	if (kind === "p") {
		pending.onPid?.(Number(values[0]));
		return;
	}
	state.pending.delete(id);
	holdOpen(state);
	pending.settle({ kind, values });
}

/** While an answer is awaited the launcher's pipe keeps this process alive; idle, it does not. */
function holdOpen(state: LauncherState): void {
	const answers = state.child.stdout as Socket | null;
	if (state.pending.size > 0) answers?.ref();
	else answers?.unref();
}

/** Ends the launcher and every hook it still runs; waiting requests fail with `reason`. */
function stopLauncher(state: LauncherState, reason: string, failed = false): void {
	if (launchers.get(state.kind) === state) launchers.delete(state.kind);
	if (failed && state.kind === "perl") perlFailed = true;
	for (const pid of state.running) killHook(pid);
	for (const pending of state.pending.values()) pending.settle({ kind: "error", values: [reason] });
	state.pending.clear();
	signalChild(state.child, "SIGKILL");
	rmSync(state.root, { recursive: true, force: true });
}

/**
 * SIGKILLs a hook's first process and its children, stopped first so that it forks none after
 * they are listed. From the shell launcher that process is `unshare`, whose `--kill-child` ends its
 * child with it, but only once the child has asked for it, and a kill at the very start could come
 * before; from the Perl launcher it is the namespace's first process, whose end ends everything in it.
 */
function killHook(pid: number): void {
	// Stopped first: a child forked between the read of its children and its kill would be missed,
	// and outlive it if it had not yet asked for `--kill-child`'s signal.
	stopProcess(pid);
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
	signalProcess(pid, "SIGKILL");
	for (const child of children) signalProcess(child, "SIGKILL");
}

/** Sends `text` (which the caller makes from the request's id) and waits for its answer. */
function request(state: LauncherState, text: (id: string) => string, onPid?: (pid: number) => void): Promise<Answer> {
	const id = String(state.next++);
	return new Promise((settle) => {
		state.pending.set(id, { onPid, settle });
		holdOpen(state);
		state.child.stdin?.write(text(id));
	});
}

/** A shell launcher's request: one line of quoted words. */
function shellRequest(verb: string, words: readonly string[]): (id: string) => string {
	return (id) => `${[verb, id, ...words].map(requestWord).join(" ")}\n`;
}

async function takeSlot(state: LauncherState): Promise<Slot> {
	const free = state.free.pop();
	if (free) return free;
	const dir = join(state.root, String(state.slots++));
	mkdirSync(dir, { mode: 0o700 });
	if (state.kind === "sh") {
		const made = await request(state, shellRequest("fifo", [dir]));
		if (made.kind !== "f" || made.values[0] !== "0") {
			throw new Error(`could not make the hook's pipes (${made.values[0]})`);
		}
	}
	return { dir };
}

/** Opens a FIFO's reading end without waiting for a writer; its end comes once the hook's writers are gone. */
function openReader(path: string): Socket {
	const descriptor = openSync(path, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
	return new Socket({ fd: descriptor, readable: true, writable: false });
}

function exitOf(answer: Answer, slot: Slot, started: boolean): LaunchedExit {
	const [status, outBytes, errBytes] = answer.values;
	if (answer.kind === "e") return { error: "its working directory cannot be entered" };
	if (answer.kind === "u") {
		perlFailed = true;
		return { error: "the hook launcher could not start it (a namespace, pipe or fork failed)", notStarted: !started };
	}
	if (answer.kind !== "x") return { error: status ?? "the hook launcher failed", notStarted: !started };
	// `$?` cannot tell a process killed by signal N from one that exited 128 + N (a hook's shell
	// reports its killed child so): it is taken as the exit code, which the hook's own shell gives.
	const ended = { exitCode: Number(status), signal: null };
	if (outBytes === undefined) return ended;
	const stdoutBytes = Number(outBytes);
	let both = Buffer.alloc(0);
	try {
		if (stdoutBytes + Number(errBytes) > 0) both = readFileSync(join(slot.dir, "out"));
	} catch (error) {
		return { error: `its output could not be read (${(error as Error).message})` };
	}
	return { ...ended, output: { stdout: both.subarray(0, stdoutBytes), stderr: both.subarray(stdoutBytes) } };
}

/** The environment as `NAME=VALUE` words, or undefined when the launcher cannot pass it exactly. */
function environmentWords(kind: LauncherKind, env: Record<string, string | undefined>): string[] | undefined {
	const variables: string[] = [];
	for (const [name, value] of Object.entries(env)) {
		if (value === undefined) continue;
		if (name.includes("=") || name.includes("\0") || value.includes("\0")) return undefined;
		if (kind === "sh" && (!EXPORTABLE_NAME.test(name) || SHELL_OWNED.has(name))) return undefined;
		variables.push(`${name}=${value}`);
	}
	return variables;
}

/** Writes what the hook runs into the slot and returns the request that starts it. */
function runRequest(
	state: LauncherState,
	slot: Slot,
	input: { file: string; args: readonly string[]; cwd: string; variables: readonly string[] },
): (id: string) => string {
	const words = [String(input.variables.length), ...input.variables, input.file, ...input.args];
	if (state.kind === "sh") {
		const run = `cwd=${singleQuoted(input.cwd)}\nset -- ${words.map(singleQuoted).join(" ")}\n`;
		writeFileSync(join(slot.dir, "run"), run, { mode: 0o600 });
		return shellRequest("run", [slot.dir]);
	}
	const body = [slot.dir, input.cwd, ...words].join("\0");
	return (id) => `${id} ${Buffer.byteLength(body)}\n${body}`;
}

/**
 * Starts `file args` through the launcher in `cwd` with exactly `env`, `stdin` as its input, in a
 * PID namespace of its own (the shell launcher runs `inNamespace(file, args)` for it). Undefined when
 * `env` holds a variable the launcher cannot pass exactly, or where there is no memory file system
 * for its slots (the caller then spawns the process itself). Rejects when the launcher cannot be
 * started or cannot make the hook's pipes.
 */
export async function launchHook(input: {
	file: string;
	args: readonly string[];
	inNamespace: (file: string, args: readonly string[]) => { file: string; args: readonly string[] };
	cwd: string;
	env: Record<string, string | undefined>;
	stdin: string;
}): Promise<LaunchedHook | undefined> {
	const kind = perlFailed ? "sh" : launcherKind();
	const variables = environmentWords(kind, input.env);
	const words = [input.file, ...input.args];
	if (variables === undefined || words.some((word) => word.includes("\0")) || input.cwd.includes("\0")) {
		return undefined;
	}
	let state = launchers.get(kind);
	if (!state) {
		const parent = slotsParent();
		if (parent === undefined) return undefined;
		state = startLauncher(kind, parent);
		launchers.set(kind, state);
	}
	const launcher = state;
	const slot = await takeSlot(launcher);
	const program = kind === "sh" ? input.inNamespace(input.file, input.args) : input;
	const text = runRequest(launcher, slot, { file: program.file, args: program.args, cwd: input.cwd, variables });
	writeFileSync(join(slot.dir, "in"), input.stdin, { mode: 0o600 });
	const streams =
		kind === "sh" ? { stdout: openReader(join(slot.dir, "out")), stderr: openReader(join(slot.dir, "err")) } : {};
	let pid: number | undefined;
	let killed = false;
	let ended = false;
	const exit = request(launcher, text, (started) => {
		pid = started;
		launcher.running.add(started);
		if (killed) killHook(started);
	}).then((answer) => {
		if (pid !== undefined) launcher.running.delete(pid);
		ended = true;
		return exitOf(answer, slot, pid !== undefined);
	});
	let released = false;
	return {
		...streams,
		exit,
		kill: () => {
			killed = true;
			if (pid !== undefined && launcher.running.has(pid)) killHook(pid);
		},
		release: () => {
			if (released) return;
			released = true;
			streams.stdout?.destroy();
			streams.stderr?.destroy();
			// A hook whose end was never heard of may still write into its slot: that slot is not reused.
			if (ended && launchers.get(kind) === launcher) launcher.free.push(slot);
		},
	};
}
