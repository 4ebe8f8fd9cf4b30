import type { ReadDescriptor } from "../../shell/exec-types.js";
import { singleQuoted } from "../../shell/single-quoted.js";
import { deferredJoinCgroupScript } from "../process/cgroup.js";
import type { ProcessContainment } from "../process/containment.js";
import {
	becomeCommandScript,
	relayAheadLaunchLine,
	relayAheadScript,
	relayEnvironment,
	wrapperShell,
} from "./output-relay.js";
import { openDescriptorsScript } from "./read-descriptors.js";
import { inPlaceLaunchLine, inPlaceScript, runsInPlace } from "./standby-in-place.js";

// The shell text of a standby shell (standby-shell.ts): the program it waits with, and the launch
// it is handed to become a command (the command's variables, output file and arguments).

/**
 * Longest launch handed to a standby. Beyond it the command starts afresh, where an environment
 * and arguments too large to execute fail at spawn with E2BIG (which the tool words for the model).
 */
const maxLaunchBytes = 256 * 1024;

/** Names a shell can `export`; a command with any other variable starts fresh (spawn passes every name). */
const shellVariableName = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Variables bash keeps read-only, so that the standby cannot `export` them, where a freshly started
 * bash passes their values from its environment on to the command (`BASHOPTS` even sets its options):
 * a command with any of them starts fresh.
 */
const readOnlyInBash = new Set(["BASHOPTS", "BASH_VERSINFO", "EUID", "PPID", "SHELLOPTS", "UID"]);

/**
 * True for a variable the standby cannot hand its command: a name no shell can set, one bash keeps
 * read-only, or one of the standby's own (`toolbelt_…`, which would steer its script).
 */
function cannotExport(name: string): boolean {
	return !shellVariableName.test(name) || readOnlyInBash.has(name) || name.startsWith("toolbelt_");
}

/**
 * `$0` of a standby shell, so that its processes can be told apart from the relay's (`wrapperName`):
 * a command it runs in place (standby-in-place.ts), and every subshell of that command, carry it.
 */
export const standbyName = "toolbelt-standby";

/** What a standby shell needs to become a command. */
export interface StandbyCommand {
	/** The program the command runs (the resolved shell, or a sandbox launcher). */
	file: string;
	/** Its arguments. */
	args: string[];
	/** Its working folder: only a standby waiting in this very folder is used. */
	cwd: string;
	/** The command's environment; the containment's marker is added. */
	env: Record<string, string>;
	/** Descriptor of the output file (this process's), opened for appending: the relay started ahead appends to it. */
	outputFile: number;
	/** Files to open on descriptors before the command starts (see `ShellExecRequest.readDescriptors`). Default: none. */
	readDescriptors?: readonly ReadDescriptor[];
}

/** SHLVL as the wrapper would have made it from the caller's: one more (bash's rule). */
function shellLevel(inherited: string | undefined): string | undefined {
	if (inherited === undefined || !/^\s*-?\d+\s*$/.test(inherited)) return undefined;
	const level = Number.parseInt(inherited, 10) + 1;
	return String(level >= 1000 ? 1 : Math.max(level, 0));
}

/**
 * The launch the standby runs: the command's variables, as a freshly started wrapper would
 * have them (PWD and OLDPWD kept only where bash keeps them), its stderr joined to its stdout
 * (the relay's pipe, whose destination toolbelt sends the relay itself: `relayAheadTarget`) and
 * its arguments. Undefined when a variable cannot be handed over (`cannotExport`), or when the
 * launch is too large.
 */
export function launchScript(command: StandbyCommand, containment: ProcessContainment): string | undefined {
	const commandEnv = { ...command.env, ...containment.env };
	const env = relayEnvironment(commandEnv);
	const lines: string[] = [];
	for (const [name, value] of Object.entries(env)) {
		if (cannotExport(name)) return undefined;
		if (name === "PWD" || name === "OLDPWD" || name === "SHLVL") continue;
		lines.push(`export ${name}=${singleQuoted(value)}`);
	}
	const level = shellLevel(env.SHLVL);
	if (level !== undefined) lines.push(`export SHLVL=${level}`);
	if (env.PWD?.startsWith("/"))
		lines.push(`if [ ${singleQuoted(env.PWD)} -ef . ]; then export PWD=${singleQuoted(env.PWD)}; fi`);
	if (env.OLDPWD !== undefined)
		lines.push(`if [ -d ${singleQuoted(env.OLDPWD)} ]; then export OLDPWD=${singleQuoted(env.OLDPWD)}; fi`);
	const opens = openDescriptorsScript(command.readDescriptors);
	if (opens !== "") lines.push(opens);
	lines.push(relayAheadLaunchLine);
	if (wrapperShell !== undefined && runsInPlace(wrapperShell, command.file, command.args, commandEnv))
		lines.push(inPlaceLaunchLine(command.args[3] ?? ""));
	lines.push(`set -- ${[command.file, ...command.args].map(singleQuoted).join(" ")}`);
	const launch = `${lines.join("\n")}\n`;
	return launch.length > maxLaunchBytes ? undefined : launch;
}

/**
 * Starts the command's output relay, joins the cgroup (the relay joins too, so it ends with it),
 * then waits for the launch on fd 4: its length in bytes on one line, then the script, read in one
 * go (`read -N` reads a pipe in chunks, where other forms read byte by byte; the waiting shell's
 * locale is C, so characters are bytes). fd 4 is a socket, which no other process can open through
 * `/proc` to slip in a launch of its own. An empty or short launch (toolbelt went away) ends the
 * shell. A `held` one first waits for an empty line on fd 4 before it joins, and its relay for one
 * on fd 3. The relay started as the shell starts takes its forks off the path of the first call
 * (`relayAheadScript`); `cat` is `relayCat`, a trusted absolute path (`relayCat` in
 * output-relay.ts). A plain bash command is run by the shell itself (standby-in-place.ts). First,
 * the locales the command will likely name are loaded (`localeWarmUp`). One line of shell text:
 * line numbers in a command run in place count from it.
 */
export function standbyScript(options: {
	cgroup: string;
	reportJoin: boolean;
	held: boolean;
	relayCat: string;
	/** Loads locales while the shell waits (standby-locale.ts). Default: none. */
	localeWarmUp?: string;
}): string {
	const { cgroup, reportJoin, held, relayCat, localeWarmUp = "" } = options;
	const { join, refuseUnlessJoined, joinSubshell } = deferredJoinCgroupScript(cgroup);
	return [
		"set +o posix",
		...(localeWarmUp === "" ? [] : [localeWarmUp]),
		// The first standby's stdout is a pipe to toolbelt: kept on fd 5 for its answer, as the relay takes stdout.
		...(reportJoin ? ["exec 5>&1"] : []),
		relayAheadScript({ cat: relayCat, launchFd: 4, answerFd: 5, held, joinRelay: joinSubshell }),
		...(held ? ["IFS= read -r -u 4 toolbelt_go || exit 0", "unset toolbelt_go"] : []),
		join,
		// It says before it reads its command, so the answer is there before the command runs.
		...(reportJoin ? ['if [ -n "$toolbelt_not_joined" ]; then echo no >&5; else echo yes >&5; fi', "exec 5>&-"] : []),
		"IFS= read -r -u 4 toolbelt_launch_bytes || exit 0",
		'case "$toolbelt_launch_bytes" in "" | *[!0-9]*) exit 0 ;; esac',
		'IFS= read -r -N "$toolbelt_launch_bytes" -u 4 toolbelt_launch || exit 0',
		"exec 4<&-",
		'eval "$toolbelt_launch"',
		"unset toolbelt_launch toolbelt_launch_bytes",
		'[ "$#" -gt 0 ] || exit 0',
		// The first one runs its command in its process group when it could not join: that is
		// how every command runs once cgroups are found unusable (toolbelt learns it from the answer).
		...(reportJoin ? [] : [refuseUnlessJoined]),
		inPlaceScript,
		becomeCommandScript,
	].join("; ");
}
