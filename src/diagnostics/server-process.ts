// A language server's process: started in a containment of its own (a cgroup, else its own process
// group) so that it and everything it starts (tsserver, pyright's workers) end together, with the
// session or with toolbelt.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import {
	attachRoot,
	containedCommand,
	createProcessContainment,
	type ProcessContainment,
	registerSessionCleanup,
	releaseContainment,
	signalProcessGroup,
	terminateContainment,
} from "../workspace/local/index.js";

/** A started server process. */
export interface ServerProcess {
	/** The child, with its stdin/stdout carrying LSP. */
	child: ChildProcessWithoutNullStreams;
	/** The last lines it wrote to stderr (for a start that failed). */
	stderrTail(): string;
	/** Ends the whole tree: SIGTERM, then SIGKILL after `graceMs`. Idempotent. */
	stop(graceMs?: number): Promise<void>;
}

/**
 * How long `stop` waits, after the kill, for the server's own exit to be reaped, in ms: until then
 * its pid stays listed (a process with a large heap tears down slowly on a busy machine).
 */
const EXIT_WAIT_MS = 2000;

/** Resolves when `child` has exited (at once if it has), or after `limitMs`. */
function exitOf(child: ChildProcessWithoutNullStreams, limitMs: number): Promise<void> {
	if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
	return new Promise((resolve) => {
		const timer = setTimeout(done, limitMs);
		function done() {
			clearTimeout(timer);
			child.off("exit", done);
			resolve();
		}
		child.once("exit", done);
	});
}

/** How much of a server's stderr is kept, to say why it failed. */
const STDERR_KEPT = 4096;

/**
 * Starts `command` in `cwd` with `base` (default: this process's environment) and the server's own
 * `env` on top. It is registered to end at toolbelt's exit (and with `disposeShellProcesses`) until
 * `stop` runs.
 */
export function startServerProcess(
	command: readonly string[],
	cwd: string,
	env: Readonly<Record<string, string>> = {},
	base: Readonly<Record<string, string | undefined>> = process.env,
): ServerProcess {
	const [file, ...args] = command;
	if (!file) throw new Error("the server's command is empty");
	const containment: ProcessContainment = createProcessContainment();
	const contained = containedCommand(containment, file, args);
	const child = spawn(contained.file, contained.args, {
		cwd,
		env: { ...base, ...env, ...containment.env },
		stdio: ["pipe", "pipe", "pipe"],
		// Its own process group, so a signal to toolbelt's group (Ctrl-C) is not what ends it.
		detached: true,
	});
	attachRoot(containment, child.pid);
	let stderr = "";
	child.stderr.setEncoding("utf8");
	child.stderr.on("data", (chunk: string) => {
		stderr = (stderr + chunk).slice(-STDERR_KEPT);
	});
	// A write to a server that died is reported by the exit, not as an unhandled error.
	child.stdin.on("error", () => {});
	let stopping: Promise<void> | undefined;
	const stop = (graceMs = 1000) => {
		stopping ??= (async () => {
			unregister();
			await terminateContainment(containment.tree, { graceMs });
			await exitOf(child, EXIT_WAIT_MS);
			releaseContainment(containment.tree);
		})();
		return stopping;
	};
	const unregister = registerSessionCleanup({
		killNow: () => {
			const group = containment.tree.groupId;
			if (group !== undefined) signalProcessGroup(group, "SIGKILL");
		},
		dispose: () => stop(200),
	});
	return { child, stderrTail: () => stderr, stop };
}
