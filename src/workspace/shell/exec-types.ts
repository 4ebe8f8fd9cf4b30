import type { ShellOutput, TailBudget } from "./output-tail.js";

// The process-execution contract lives apart from the tools' option and detail types (types.ts), which
// name the jobs registry: jobs/ needs this contract, and one file holding both made an import circle.

/** What the shell runner asks an executor to start. */
export interface ShellExecRequest {
	/** The program to start: the resolved shell, e.g. `/bin/bash` or `pwsh`. */
	file: string;
	/** Its arguments, the command included (e.g. `["-c", "ls -la"]`). */
	args: string[];
	/** Working directory; it exists (the runner checked with `isDirectory`). */
	cwd: string;
	/** The complete environment of the shell (already merged with the caller's environment). */
	env: Record<string, string>;
	/** Kill the whole process tree after this many milliseconds; the result says `timedOut`. */
	timeoutMs: number;
	/** Aborting kills the whole process tree; the result says `aborted`. */
	signal?: AbortSignal;
	/**
	 * Written to the shell's stdin, which is then closed. A command too long for an argument arrives
	 * this way, so every executor must deliver it. Default: nothing (stdin is empty at once).
	 */
	stdin?: string;
	/**
	 * Receives stdout and stderr bytes in arrival order. When it returns a promise, the executor
	 * stops reading until it settles (backpressure, so memory stays bounded).
	 */
	onData(chunk: Buffer): void | Promise<void>;
	/**
	 * Keeps stdin open as a pipe (after `stdin`, if given, is written) and hands its writer over, so
	 * a background job can be talked to. An executor that cannot keep stdin open never calls it.
	 * Default: stdin is closed after `stdin`.
	 */
	openStdin?(input: ShellInput): void;
	/**
	 * Runs the command under a pseudo-terminal (a REPL, a prompt or a progress UI behaves as in a
	 * terminal); stdout and stderr are the terminal. An executor that cannot rejects with a message
	 * saying so. Default: false (pipes).
	 */
	tty?: boolean;
	/**
	 * Called once the command started, with a handle that kills its whole tree (the same kill as a
	 * timeout), also after the shell itself exited and left processes behind. Default: none.
	 */
	onStart?(handle: ShellRunHandle): void;
	/**
	 * Files the shell that becomes the command opens read-only on these descriptors first (the
	 * sandbox hands bwrap its seccomp program on one, without a shell of its own in between). Only
	 * for operations whose `opensDescriptors` is true, and not with `tty`. Default: none.
	 */
	readDescriptors?: readonly ReadDescriptor[];
}

/** A file opened read-only on a descriptor for the command (see `ShellExecRequest.readDescriptors`). */
export interface ReadDescriptor {
	/** The descriptor number, 3 to 1023 (above 9 the local operations open it with bash, whose redirections can name it). */
	fd: number;
	/** The file's absolute path. */
	path: string;
}

/** The writable stdin of a running command (see `ShellExecRequest.openStdin`). */
export interface ShellInput {
	/** Writes `text`; resolves once it is handed to the pipe, rejects when stdin is closed. */
	write(text: string): Promise<void>;
	/** Closes stdin: the command reads end-of-input. */
	end(): void;
	/** False once stdin was closed (by `end`, or because the command closed its end or exited). */
	readonly writable: boolean;
}

/** A started command, as `ShellExecRequest.onStart` sees it. */
export interface ShellRunHandle {
	/** The shell's pid (also its process group id on POSIX), when known. */
	pid?: number;
	/** Ends every process of the command: SIGTERM, then SIGKILL after a short grace. */
	killTree(): Promise<void>;
	/** Pids of the command's processes still alive (the whole tree). */
	livePids(): number[];
	/** SIGKILLs every process of the command at once (for toolbelt's own exit, which cannot wait). */
	killNow(): void;
}

/** How an execution ended. */
export interface ShellExecResult {
	/** The shell's exit code, or null when it died by a signal. */
	exitCode: number | null;
	/** The signal that killed the shell (e.g. `SIGKILL`), or null. */
	signal: string | null;
	/** True when the tree was killed because `timeoutMs` passed. */
	timedOut: boolean;
	/** True when the tree was killed because `signal` aborted. */
	aborted: boolean;
	/** Processes the command left running in the background (they keep running until disposal). */
	backgroundPids: number[];
	/**
	 * Processes that seem to have escaped tracking (a new session and a cleared environment, where
	 * no cgroup holds the command): toolbelt cannot stop them, so the model is told. Default: none.
	 */
	escapedProcesses?: EscapedProcess[];
	/** Process id of the shell (and of its process group on POSIX), when known. */
	pid?: number;
	/** What the model must know about the call besides its output (e.g. what the sandbox undid after it). Default: none. */
	notices?: string[];
	/** The connections the sandbox's network proxy allowed or refused for the call (its audit). Default: none. */
	network?: ShellNetworkConnection[];
}

/** One connection of a sandboxed call, as the network proxy recorded it. */
export interface ShellNetworkConnection {
	/** The host as the command named it, and the port. */
	host: string;
	port: number;
	/** How it came: `http` (a plain request), `connect`, `socks`, or `forward` (a listed loopback port). */
	via: string;
	allowed: boolean;
	/** The allow or deny entry that decided, as written; none when no entry matched. */
	rule?: string;
	/** For a refusal: why, and what would allow it. */
	reason?: string;
	/** Bytes from the command to the host and back (so far, for one still open when the call ended). */
	bytesSent: number;
	bytesReceived: number;
}

/**
 * Process execution for the shell tools. The local default spawns processes on this machine;
 * a remote executor (SSH, container) implements the same three methods.
 */
export interface ShellOperations {
	/** Runs a shell; resolves when the shell exits (not when inherited pipes close). */
	exec(request: ShellExecRequest): Promise<ShellExecResult>;
	/** True when `path` is an existing directory. */
	isDirectory(path: string): Promise<boolean>;
	/**
	 * Finds an executable: an absolute or relative path is checked as is, a bare name is looked up
	 * on the `PATH` of `env`. Resolves to the path to start, or undefined when there is none.
	 */
	findExecutable(nameOrPath: string, env: Record<string, string>): Promise<string | undefined>;
	/**
	 * Optional. Runs like `exec`, but the shell's stdout and stderr are `outputFile`, a descriptor
	 * of a local file opened for appending, and `onData` is never called: the output reaches the
	 * file without passing through toolbelt's process, which reads back only the tail it shows.
	 * Only an executor whose processes write to this machine's files can offer it.
	 */
	execToFile?(request: Omit<ShellExecRequest, "onData">, outputFile: number): Promise<ShellFileExecResult>;
	/**
	 * Optional. Runs like `exec`, but the output stays where the command runs (in a file there) and
	 * only its tail comes back: the executor itself renders what the model sees within `options.budget`,
	 * and names the kept file when the output was cut. For an executor whose commands run on another
	 * machine, so the full output never crosses the connection.
	 */
	execKeepingOutput?(request: Omit<ShellExecRequest, "onData">, options: KeptOutputOptions): Promise<KeptOutputResult>;
	/**
	 * Optional. Called as a shell tool is created in `cwd` (`moment` "created") and as its call
	 * begins there ("call", the default; before the folder check and the shell's lookup): starts
	 * what the command will need unless it is under way, so that this work happens before the call,
	 * or overlaps its own preparation. Locally: the shell that becomes the command, started as the
	 * tool is created; it joins its cgroup as a call begins.
	 */
	prepare?(cwd: string, moment?: ShellPrepareMoment): void;
	/** True when `exec` and `execToFile` honour `ShellExecRequest.readDescriptors` (without `tty`). Default: false. */
	opensDescriptors?: boolean;
}

/** When `ShellOperations.prepare` is called: as the tool is created, or as a call begins. */
export type ShellPrepareMoment = "created" | "call";

/** Options of `ShellOperations.execKeepingOutput`. */
export interface KeptOutputOptions {
	/** What the model may see of the output. */
	budget: TailBudget;
	/** Receives the sanitized tail now and then while the command runs. Default: none (no progress). */
	onPreview?(text: string): void;
}

/** How an `execKeepingOutput` execution ended, and its output as the model sees it. */
export interface KeptOutputResult {
	/** How the command ended. */
	result: ShellExecResult;
	/** The rendered tail and totals; `fullOutputPath` is on the machine named by `fullOutputHost`. */
	output: ShellOutput;
}

/** How an `execToFile` execution ended. */
export interface ShellFileExecResult extends ShellExecResult {
	/**
	 * Processes that may still append to the output file: the background jobs, and anything the
	 * executor runs to carry their output there. toolbelt keeps the file from growing without bound
	 * until they are gone.
	 */
	outputWriters: number[];
}

/** A process that may have escaped a command's tracking. */
export interface EscapedProcess {
	/** Its pid. */
	pid: number;
	/** Its command line (arguments joined by spaces, cut at 200 characters). */
	command: string;
}
