import type { ShellOperations } from "../shell/exec-types.js";

/** What a call that needs a process hears from a workspace that has none. */
export const CANNOT_RUN_COMMANDS =
	"This workspace cannot run commands: its files live in memory, with no machine behind them to run a process on. Use the file tools (read, write, edit, grep, find, ls) instead.";

function refuse(): Promise<never> {
	return Promise.reject(new Error(CANNOT_RUN_COMMANDS));
}

/**
 * The shell of a workspace that cannot run processes (an in-memory one): every call is refused
 * with `CANNOT_RUN_COMMANDS`, so bash says so instead of running on this machine.
 */
export const noShellOperations: ShellOperations = {
	exec: refuse,
	isDirectory: refuse,
	findExecutable: refuse,
};
