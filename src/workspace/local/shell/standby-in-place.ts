// A bash command run by the standby shell itself (standby-launch.ts), not by a second bash it
// `exec`s: the standby is already the very bash the command asks for (`/bin/bash --norc
// --noprofile -c COMMAND`), and an `exec` of it loads bash's libraries and locale again — about
// 6 ms of every short command on a machine where starting a program is slow. The standby reads
// the command where that bash would have, with nothing of its own left over: `$0`, `$#`, `$_`,
// `$BASH_EXECUTION_STRING`, line numbers (the standby's script is one line) and the variables
// as a freshly started bash has them. What still tells them apart: a syntax error names `eval:`
// where bash names `-c:` (as a long command read from stdin always did), `$!` is the pid of the
// relay's starter, long reaped, and `ps` shows the standby's script as the command line of the
// command's own shell and its subshells, whose `/proc/<pid>/environ` is the standby's empty one
// (the variables are set inside the shell and passed to every program it starts).

/**
 * Variables a bash acts on only as it starts, or sets itself, so that one exported into a shell
 * already running is not what a fresh bash makes of it (`IFS` from the environment is ignored,
 * `PS4` too as root, `RANDOM` seeds, `LINENO` counts...); with the `BASH…` names (`BASH_ENV` names
 * a file to read). A command whose environment names one takes the `exec` path. Those bash keeps
 * read-only (`SHELLOPTS`, `UID`...) never get here: such a command starts fresh (`launchScript`).
 */
const readAtStart = new Set([
	"COMP_WORDBREAKS",
	"DIRSTACK",
	"ENV",
	"EPOCHREALTIME",
	"EPOCHSECONDS",
	"FUNCNAME",
	"GROUPS",
	"HISTCMD",
	"IFS",
	"LINENO",
	"PIPESTATUS",
	"POSIXLY_CORRECT",
	"PS4",
	"RANDOM",
	"SECONDS",
	"SRANDOM",
]);

/** True for a name bash reads at its start or sets itself, or one the relay's wrapper hands back (`relayEnvironment`). */
function startupName(name: string): boolean {
	return readAtStart.has(name) || name.startsWith("BASH") || name.startsWith("TOOLBELT_SAVED_");
}

/**
 * True when the standby, a `shell` (the relay's bash), can run `file args` itself: the command is
 * that same bash with no startup files and a `-c` string, and its environment names no variable
 * bash acts on only as it starts (`startupName`).
 */
export function runsInPlace(
	shell: string,
	file: string,
	args: readonly string[],
	env: Record<string, string>,
): boolean {
	if (file !== shell || args.length !== 4) return false;
	if (args[0] !== "--norc" || args[1] !== "--noprofile" || args[2] !== "-c") return false;
	return !Object.keys(env).some(startupName);
}

/** The launch's line that asks the standby to run its command itself (see `inPlaceScript`). */
export const inPlaceLaunchLine = "toolbelt_in_place=1";

/**
 * The standby's step that runs its command itself, when the launch asked for it (`runsInPlace`),
 * the shell joined its cgroup (else it runs in its process group, where the command line of what
 * escapes is reported, and must be the command's), and its bash can set `$0` (`BASH_ARGV0`, bash 5).
 * `"$@"` is `/bin/bash --norc --noprofile -c COMMAND`: `$0` becomes the program, the arguments go,
 * `$_` is the program as in a fresh bash, and the command is read from `BASH_EXECUTION_STRING`,
 * where a fresh bash has it, so that no variable of the standby's remains. `exit` passes on the
 * command's status: the builtin, as the command may have defined a function of that name. One
 * line: a line number in an `eval` counts from the `eval`'s own line.
 */
export const inPlaceScript = `if [ -n "\${toolbelt_in_place-}" ] && [ -z "\${toolbelt_not_joined-}" ] && [ "\${BASH_VERSINFO[0]}" -ge 5 ] && [ "$#" -eq 5 ]; then unset toolbelt_in_place; BASH_ARGV0=$1; BASH_EXECUTION_STRING=$5; set --; : "$BASH_ARGV0"; eval "$BASH_EXECUTION_STRING"; builtin exit; fi; unset toolbelt_in_place`;
