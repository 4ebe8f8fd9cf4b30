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
//
// A command that is one program and its plain words (`seq 1 100000`, `git status`, `npm test`) is
// what a fresh `bash -c` does not fork for: it `exec`s the program in place of itself. Run through
// `eval`, bash forks it and waits, which on a machine where a fork is slow cost a first call made
// at once ~4 ms (BENCHMARKS.md). So the standby `exec`s such a command too, once bash finds the
// program (else the `eval` gives bash's own words for a missing one).

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

/**
 * Bash's builtins and reserved words (bash 5), which a command naming one runs in the shell, not
 * as a program: `exec` would run a program of that name instead (`/usr/bin/echo`), or none.
 */
const shellOwnWords = new Set(
	[
		"alias bg bind break builtin caller cd command compgen complete compopt continue declare dirs disown echo",
		"enable eval exec exit export false fc fg getopts hash help history jobs kill let local logout mapfile",
		"popd printf pushd pwd read readarray readonly return set shift shopt source suspend test times trap",
		"true type typeset ulimit umask unalias unset wait if then else elif fi case esac for select while",
		"until do done in function time coproc",
	]
		.join(" ")
		.split(" "),
);

/**
 * One program and its arguments, all plain words: characters no shell gives a meaning to (no
 * quote, expansion, glob, operator or comment), one space apart. The first is no assignment, no
 * job (`%1`), and no path: bash's `exec` runs a program named by a path from the folder, or found
 * through a relative `PATH` entry, by its absolute path, which a script then sees as its `$0`.
 */
const plainCommand = /^[A-Za-z0-9_.+@-][A-Za-z0-9_.+@%,:-]*( [A-Za-z0-9_./+@%,:=-]+)* *$/;

/**
 * True when a fresh `bash -c command` would run `command` as a program in place of itself: one
 * simple command of plain words (`plainCommand`) whose first word is neither a builtin nor a
 * reserved word (no function exists in a standby: a variable that would define one starts the
 * command afresh, `launchScript`), and not `.` (`source`). The program is looked for in `PATH`.
 */
export function replacesShell(command: string): boolean {
	if (!plainCommand.test(command)) return false;
	const program = command.split(" ", 1)[0] ?? "";
	return !program.startsWith("-") && program !== "." && !shellOwnWords.has(program);
}

/**
 * The launch's line that asks the standby to run `command` itself (see `inPlaceScript`): `exec`
 * for a command bash runs in place of itself (`replacesShell`).
 */
export function inPlaceLaunchLine(command: string): string {
	return `toolbelt_in_place=${replacesShell(command) ? "exec" : "eval"}`;
}

/**
 * The standby's step that runs its command itself, when the launch asked for it (`runsInPlace`),
 * the shell joined its cgroup (else it runs in its process group, where the command line of what
 * escapes is reported, and must be the command's), and its bash can set `$0` (`BASH_ARGV0`, bash 5).
 * `"$@"` is `/bin/bash --norc --noprofile -c COMMAND`: `$0` becomes the program, the arguments go,
 * `$_` is the program as in a fresh bash, and the command is read from `BASH_EXECUTION_STRING`,
 * where a fresh bash has it, so that no variable of the standby's remains. A program run in place
 * of the shell (`inPlaceLaunchLine`) is `exec`ed once bash has found it in `PATH` (`hash`, which
 * fails for none, and the path bash would run, `BASH_CMDS`) at an absolute path; else its entry
 * leaves the hash table again (bash runs a hashed program found through a relative entry by
 * another path, `./bin/x` for `bin/x`). The program is the first word, which `replacesShell`
 * keeps free of anything but plain characters. `_` is exported with the program's path, as bash
 * does for a program it starts (its `exec` builtin does not). `exit` passes on the
 * command's status: the builtin, as the command may have defined a function of that name. One
 * line: a line number in an `eval` counts from the `eval`'s own line.
 */
export const inPlaceScript = `if [ -n "\${toolbelt_in_place-}" ] && [ -z "\${toolbelt_not_joined-}" ] && [ "\${BASH_VERSINFO[0]}" -ge 5 ] && [ "$#" -eq 5 ]; then BASH_ARGV0=$1; BASH_EXECUTION_STRING=$5; set --; if [ "$toolbelt_in_place" = exec ] && hash -- "\${BASH_EXECUTION_STRING%% *}" 2>/dev/null; then if [[ \${BASH_CMDS[\${BASH_EXECUTION_STRING%% *}]} == /* ]]; then unset toolbelt_in_place; _=\${BASH_CMDS[\${BASH_EXECUTION_STRING%% *}]} eval "exec $BASH_EXECUTION_STRING"; fi; hash -d -- "\${BASH_EXECUTION_STRING%% *}"; fi; unset toolbelt_in_place; : "$BASH_ARGV0"; eval "$BASH_EXECUTION_STRING"; builtin exit; fi; unset toolbelt_in_place`;
