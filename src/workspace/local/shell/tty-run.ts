import { constants } from "node:os";
import type { IPty } from "@lydell/node-pty";
import type { ShellExecRequest, ShellExecResult, ShellInput } from "../../shell/exec-types.js";
import { attachRoot, containedCommand, createProcessContainment, releaseContainment } from "../process/containment.js";
import { terminateTree } from "../process/process-tree.js";
import { runHandle } from "./local-run.js";

type PtyModule = typeof import("@lydell/node-pty");

/** Size of the pseudo-terminal: wide enough that tools do not wrap their lines. */
const columns = 200;
const rows = 50;
/** Time from SIGTERM to SIGKILL when a tty command is timed out or aborted, in ms. */
const killGraceMs = 200;

let loading: Promise<PtyModule> | undefined;

/** Loads the PTY package once, lazily: only `tty: true` needs it, and it may be missing. */
function loadPty(): Promise<PtyModule> {
	loading ??= import("@lydell/node-pty").then(
		(module) => (module as PtyModule & { default?: PtyModule }).default ?? module,
	);
	return loading;
}

/** Why `tty: true` cannot work here, or undefined when the PTY package loads. */
export async function ttyUnavailableReason(): Promise<string | undefined> {
	try {
		await loadPty();
		return undefined;
	} catch (error) {
		return `tty: true needs the @lydell/node-pty package with a prebuilt binary for ${process.platform}-${process.arch}, and it could not be loaded (${(error as Error).message}). Run the command without tty (pass flags that avoid prompts), or install that package.`;
	}
}

function signalName(signal: number | undefined): string | null {
	if (!signal) return null;
	const found = Object.entries(constants.signals).find(([, number]) => number === signal);
	return found ? found[0] : `signal ${signal}`;
}

function ptyInput(terminal: IPty, exited: () => boolean): ShellInput {
	let open = true;
	return {
		get writable() {
			return open && !exited();
		},
		async write(text: string) {
			if (!this.writable) throw new Error("its terminal is closed");
			terminal.write(text);
		},
		end() {
			// End-of-input on a terminal is Ctrl+D at the start of a line.
			if (this.writable) terminal.write("\x04");
			open = false;
		},
	};
}

/**
 * Runs one command under a pseudo-terminal, in its own containment (cgroup, or process group and
 * marker), and resolves when the shell exits. What the terminal shows arrives at `onData`
 * (escape sequences included: the tool cleans them). Whatever the command leaves behind ends
 * with its terminal. Rejects, saying why, where the PTY package cannot load.
 */
export async function runTtyCommand(request: ShellExecRequest): Promise<ShellExecResult> {
	const reason = await ttyUnavailableReason();
	if (reason !== undefined) throw new Error(reason);
	const pty = await loadPty();
	const containment = createProcessContainment();
	const command = containedCommand(containment, request.file, request.args);
	const env = { ...request.env, ...containment.env, TERM: "xterm-256color", COLUMNS: String(columns) };
	let terminal: IPty;
	try {
		terminal = pty.spawn(command.file, command.args, {
			name: "xterm-256color",
			cols: columns,
			rows,
			cwd: request.cwd,
			env,
		});
	} catch (error) {
		releaseContainment(containment.tree);
		throw error;
	}
	attachRoot(containment, terminal.pid);
	request.onStart?.(runHandle(containment, terminal.pid));
	let exited = false;
	let timedOut = false;
	let aborted = false;
	const kill = () => void terminateTree(containment.tree, { graceMs: killGraceMs });
	terminal.onData((text) => {
		const wait = request.onData(Buffer.from(text, "utf8"));
		if (!wait) return;
		terminal.pause();
		wait.then(
			() => terminal.resume(),
			() => terminal.resume(),
		);
	});
	if (request.stdin !== undefined) terminal.write(request.stdin);
	request.openStdin?.(ptyInput(terminal, () => exited));
	const timer = setTimeout(() => {
		timedOut = true;
		kill();
	}, request.timeoutMs);
	const onAbort = () => {
		aborted = true;
		kill();
	};
	if (request.signal?.aborted) onAbort();
	else request.signal?.addEventListener("abort", onAbort, { once: true });
	const exit = await new Promise<{ exitCode: number; signal?: number }>((resolve) => terminal.onExit(resolve));
	exited = true;
	clearTimeout(timer);
	request.signal?.removeEventListener("abort", onAbort);
	// A terminal's session ends with its shell: what it left running goes too.
	await terminateTree(containment.tree, { graceMs: killGraceMs });
	releaseContainment(containment.tree);
	const signal = signalName(exit.signal);
	return {
		exitCode: signal === null ? exit.exitCode : null,
		signal,
		timedOut,
		aborted,
		backgroundPids: [],
		pid: terminal.pid,
	};
}
