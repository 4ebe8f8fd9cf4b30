import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { requireTrustedProgram } from "../programs/trusted-programs.js";

/**
 * Output into a file goes through a relay. The command gets a real pipe as stdout and stderr
 * (`/dev/stdout`, `tee /dev/stderr` and `> /dev/stderr` work on a pipe; on a file they would
 * reopen it and truncate everything before), and a `cat` copies the pipe into the output file.
 * The relay announces its pid on fd 3 and holds fd 3 until it exits: its end means every byte is
 * in the file.
 *
 * A bash wrapper sets this up (process substitution) and then becomes the command (`exec`), so
 * the pid, exit status and signal are the command's own, and the command's shell does not know
 * the relay as a job of its own (a bare `wait` would otherwise wait for it forever).
 */

/** The relay's name in `ps`, so a user who sees it next to a background job knows what it is. */
export const RELAY_NAME = "toolbelt-output-relay";

/**
 * Variables the wrapper must not act on itself, passed under other names and handed back to the
 * command: `BASH_ENV` (a startup file the wrapper would read) and `POSIXLY_CORRECT` (POSIX mode,
 * where older bash has no process substitution). The value travels with an `x` in front, so an
 * empty value survives too.
 */
const handedOver = ["BASH_ENV", "POSIXLY_CORRECT"];
const handOverPrefix = "TOOLBELT_SAVED_";

// Bash before 4 (macOS) has no $BASHPID: a small sh then tells its own pid, which cat inherits.
// `cat` by its path: the wrapper runs outside any sandbox with the command's PATH, where a sandboxed
// command may have planted one (see `findTrustedProgram`).
const announceAndCopy = (cat: string) =>
	`if [ -n "$BASHPID" ]; then printf "%s\\n" "$BASHPID" >&3; exec -a ${RELAY_NAME} ${cat}; else exec /bin/sh -c 'printf "%s\\n" "$$" >&3; exec ${cat}'; fi`;

// The process substitution is a child of this shell, and so of the command it becomes: reaped
// here, it is not there for a command that waits for any child (`setsid -w`, a `wait()` loop).
const reapRelayStarter = 'if [ -n "$!" ]; then wait "$!" 2>/dev/null; fi';
const becomeCommandLines = [
	...handedOver.map(
		(name) =>
			`if [ -n "$${handOverPrefix}${name}" ]; then export ${name}="\${${handOverPrefix}${name}#x}"; fi; unset ${handOverPrefix}${name}`,
	),
	'exec "$@"',
];

/** The shell the relay's wrapper runs in (bash: process substitution), where there is one. */
export const wrapperShell = process.platform !== "win32" && existsSync("/bin/bash") ? "/bin/bash" : undefined;
const wrapperLines = [
	// SHELLOPTS may start bash in POSIX mode, where older versions have no process substitution.
	"set +o posix",
	// The relay ignores SIGTERM: when a timeout or abort stops the command, it goes on copying what
	// the command writes while it dies (a trap's last words) and ends when the pipe closes (the
	// SIGKILL after the grace period ends it regardless). It runs in the background of the process
	// substitution, which exits at once: so the relay is no child of the command, and a command
	// that waits for all its children (a bare `wait`, a `wait()` loop) does not wait for it.
	// `<&0` keeps the pipe as its input (a background job would get /dev/null).
	(cat: string) => `exec > >( (trap "" TERM; ${announceAndCopy(cat)}) <&0 & ) 2>&1 3>&-`,
	reapRelayStarter,
	...becomeCommandLines,
];
let wrapper: { cat: string; script: string } | undefined;

/**
 * The `cat` the relay runs, by its path (see `findTrustedProgram`), checked to be writable into
 * shell text unquoted. Throws when there is no `cat` toolbelt may run.
 */
export function relayCat(): string {
	const cat = requireTrustedProgram("cat", "copy a command's output into its file");
	// Written into shell text unquoted (and inside single quotes for the small sh).
	if (!/^\/[\w./+,@%-]*$/.test(cat)) throw new Error(`cat's path cannot be written into the relay's script: ${cat}`);
	return cat;
}

/**
 * The wrapper: starts the relay, hands the variables of `relayEnvironment` back, and becomes the
 * command (`"$@"`). Its stdout must be the output file as it starts. Throws when there is no `cat`
 * toolbelt may run.
 */
export function wrapperScript(): string {
	const cat = relayCat();
	if (wrapper?.cat !== cat) {
		const script = wrapperLines.map((line) => (typeof line === "string" ? line : line(cat))).join("\n");
		wrapper = { cat, script };
	}
	return wrapper.script;
}

/**
 * The relay of a shell started before its command (a standby shell, `standby-launch.ts`), started
 * as the shell starts, before it joins its cgroup: its forks (the process substitution, and the
 * background subshell that keeps the relay from being the command's child) and their reaping are
 * then off the path of a call made at once, where they took 6–12 ms after the join on a machine
 * whose forks are slow. The shell's stdout goes into the relay's pipe now. The relay announces its
 * pid on fd 3 at once (so that the pid is known as the command starts, and no process of the
 * command is ever taken for the relay). A `held` relay then waits for an empty line on fd 3, the
 * word toolbelt sends the shell too when it may join; then it moves itself into the cgroup
 * (`joinRelay`; a relay that cannot stays in the shell's process group and still ends with its
 * pipe), waits for one line on fd 3, the path to open for appending (`/proc/<toolbelt's
 * pid>/fd/<n>`), and becomes the `cat` that copies. fd 3 is a socket from toolbelt, which no other
 * process can open through `/proc`: the destination comes from toolbelt alone. stderr is left as
 * it is: the launch points it at stdout (`relayAheadLaunchLine`), so that nothing the shell says
 * before (a locale warning while the command's variables are set) reaches the output. `cat` is
 * from `relayCat`; the relay closes the shell's launch socket (`launchFd`; toolbelt waits for its
 * end) and `answerFd`, where the first standby keeps its stdout for its answer. One line of shell
 * text, as every part of the standby's script is (see `standbyScript`). Only where cgroups are
 * used, so on Linux, with a bash that has `$BASHPID`.
 */
export function relayAheadScript(options: {
	cat: string;
	launchFd: number;
	answerFd: number;
	held: boolean;
	joinRelay: string;
}): string {
	const { cat, launchFd, answerFd, held, joinRelay } = options;
	const steps = [
		'trap "" TERM',
		`exec ${launchFd}<&- ${answerFd}>&-`,
		'printf "%s\\n" "$BASHPID" >&3',
		...(held ? ["IFS= read -r -u 3 toolbelt_go || exit 0"] : []),
		joinRelay,
		`IFS= read -r -u 3 toolbelt_output && exec >>"$toolbelt_output" && exec -a ${RELAY_NAME} ${cat}`,
	];
	return `exec > >( (${steps.join("; ")}) <&0 & ) 3>&-; ${reapRelayStarter}`;
}

/** The launch's line that sends the command's stderr where its stdout goes, into the relay started ahead. */
export const relayAheadLaunchLine = "exec 2>&1";

/** The word to join that toolbelt writes to a held shell (fd 4) and to its relay started ahead (fd 3). */
export const relayAheadJoinWord = "\n";

/** The line toolbelt writes on fd 3 of a shell whose relay started ahead: where the relay appends. */
export function relayAheadTarget(outputFile: number): string {
	return `/proc/${process.pid}/fd/${outputFile}\n`;
}

/** After the relay is started (either way): hands the variables of `relayEnvironment` back and becomes the command. */
export const becomeCommandScript = becomeCommandLines.join("; ");

/** `$0` of the wrapper, so its short-lived forks can be told apart from the command's processes. */
export const wrapperName = "toolbelt-relay";

/**
 * True for a relay process, recognised by its name where `/proc` shows it (Linux): the fallback
 * when its announced pid did not arrive in time. Also true for the wrapper's own short-lived fork
 * that starts the relay (the process substitution), which may still be exiting when a very short
 * command has ended: it is toolbelt's, not a background job of the command.
 */
export function isOutputRelay(pid: number): boolean {
	try {
		const argv = readFileSync(`/proc/${pid}/cmdline`, "latin1").split("\0");
		return argv[0] === RELAY_NAME || (argv[0] === wrapperShell && argv[5] === wrapperName);
	} catch {
		return false;
	}
}

/** True when output can be relayed into a file on this machine. */
export const canRelayOutput = wrapperShell !== undefined;

/** What `startWithRelay` starts. */
export interface RelayedCommand {
	file: string;
	args: string[];
	cwd: string;
	/** The environment (the run's marker included); the relay's variables are added to a copy. */
	env: Record<string, string>;
	/** Own process group. */
	detached: boolean;
	/** Descriptor of the output file, opened for appending. */
	outputFile: number;
	/**
	 * Shell text the wrapper runs first, before the relay starts (joining the command's cgroup, so
	 * the relay is inside it too and ends with it). Default: none.
	 */
	prelude?: string;
}

/** The command's environment as the wrapper must receive it: the variables it must not act on renamed (see `handedOver`). */
export function relayEnvironment(commandEnv: Record<string, string>): Record<string, string> {
	const env = { ...commandEnv };
	for (const name of handedOver) {
		const value = env[name];
		if (value === undefined) continue;
		delete env[name];
		env[handOverPrefix + name] = `x${value}`;
	}
	return env;
}

/**
 * Starts a command whose output a relay copies into `outputFile`. The child's fd 3 (`stdio[3]`)
 * carries the relay's pid, then closes when the relay has copied everything.
 */
export function startWithRelay(command: RelayedCommand): ChildProcess {
	if (!wrapperShell) throw new Error("relaying output into a file needs /bin/bash, which is not installed");
	const env = relayEnvironment(command.env);
	const script = command.prelude ? `${command.prelude}\n${wrapperScript()}` : wrapperScript();
	const args = ["--norc", "--noprofile", "-c", script, wrapperName, command.file, ...command.args];
	return spawn(wrapperShell, args, {
		cwd: command.cwd,
		detached: command.detached,
		env,
		stdio: ["pipe", command.outputFile, command.outputFile, "pipe"],
		windowsHide: true,
	});
}
