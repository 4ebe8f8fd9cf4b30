import { inPlaceLaunchLine, inPlaceScript } from "../../workspace/local/index.js";

// A descriptor toolbelt inherited without close-on-exec (a parent shell's `exec 200>>file`, a
// socket a launcher leaked) passes through every exec on the way in — the shell that starts bwrap,
// bwrap, the bridge — and writes through it land outside the read-only file system. Node opens its
// own descriptors close-on-exec, so only such strays are open here; none of them is the command's.
// bwrap has no option to close them, and dash cannot name a descriptor above 9, so bash does it inside
// the sandbox, last before the command, and becomes the command (about half a millisecond of CPU).
// The bash tool's command is that same bash: the closer then runs it itself, as the standby shell
// does (standby-in-place.ts), instead of loading bash a second time (an exec of bash is 4-5 ms of a
// sandboxed call on a busy machine).

/** The shell that closes the strays: an absolute path, as bwrap sees it (the host's, read-only). */
export const descriptorCloserShell = "/bin/bash";

// The glob is expanded before the loop runs, so the descriptor that listed the folder is closed by
// then. The loop's variable is toolbelt's own name, unset after it: a command run in place sees none.
const closeStrays = `for toolbelt_fd in /proc/self/fd/*; do toolbelt_fd=\${toolbelt_fd##*/}; case $toolbelt_fd in 0|1|2) ;; *) eval "exec $toolbelt_fd>&-" ;; esac; done; unset toolbelt_fd`;
const closerName = "toolbelt-sandbox";

/**
 * The words that come last before the command inside the sandbox (after bwrap's `--`, after the
 * network bridge when there is one): bash closes every descriptor but stdin, stdout and stderr,
 * then runs the program and arguments appended after them.
 */
export const descriptorCloser: readonly string[] = [
	descriptorCloserShell,
	"-c",
	`${closeStrays}; exec "$@"`,
	closerName,
];

/**
 * True when `command` is the closer's own bash asked to run a string with no startup files
 * (`/bin/bash --norc --noprofile -c COMMAND`, the bash tool's form) and `env` names none of the
 * variables the run in place uses (`toolbelt_…`): the closer can be that bash.
 */
function runsInCloser(command: readonly string[], env: Record<string, string> | undefined): boolean {
	if (command.length !== 5 || command[0] !== descriptorCloserShell) return false;
	if (command[1] !== "--norc" || command[2] !== "--noprofile" || command[3] !== "-c") return false;
	return env === undefined || !Object.keys(env).some((name) => name.startsWith("toolbelt_"));
}

/**
 * The closer and `command` as they end a sandbox's start line. The bash tool's command runs in the
 * closer itself (`runsInCloser`): `$0`, `$_`, the arguments and `BASH_EXECUTION_STRING` as a fresh
 * `bash -c` has them, a one-program command exec'd in place of the shell (`inPlaceScript`); any
 * other command is exec'd by the closer. The closer bash starts with the command's environment, so
 * what bash reads from it at its start (`BASH_ENV`, `SHELLOPTS`, `PS4`…) it reads as the command's.
 */
export function closerThenCommand(command: readonly string[], env: Record<string, string> | undefined): string[] {
	if (!runsInCloser(command, env)) return [...descriptorCloser, ...command];
	const runItself = `${closeStrays}; ${inPlaceLaunchLine(command[4] ?? "")}; ${inPlaceScript}; exec "$@"`;
	return [descriptorCloserShell, "-c", runItself, closerName, ...command];
}
