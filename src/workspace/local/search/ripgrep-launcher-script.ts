import { singleQuoted } from "../../shell/single-quoted.js";

/**
 * The bash text of the ripgrep launcher (see `ripgrep-launcher.ts`): the launcher's own script,
 * each waiting subshell's command, the environment it starts with, and how messages are framed.
 */

/** Waiting subshells per launcher, each with a pair of sockets (stdout, stderr). */
export const CHANNELS = 8;
/** The launcher's control socket: subshell ids and exit statuses, which ripgrep cannot write to. */
export const CONTROL_FD = 3;
const FIRST_CHANNEL_FD = 4;
/** Longest command handed to a subshell; a larger one (huge arguments) starts directly. */
const MAX_LAUNCH_BYTES = 128 * 1024;

export const outFd = (channel: number) => FIRST_CHANNEL_FD + 2 * channel;
export const errFd = (channel: number) => FIRST_CHANNEL_FD + 2 * channel + 1;

/**
 * A message's length in bytes on one line, then the message, read in one go (`read -N` reads a
 * socket in chunks where other forms read byte by byte; LC_ALL=C makes characters bytes).
 */
function readMessage(fd: number, into: string): string {
	return [
		`IFS= read -r -u ${fd} toolbelt_bytes || exit 0`,
		'case "$toolbelt_bytes" in "" | *[!0-9]*) exit 0 ;; esac',
		`IFS= read -r -N "$toolbelt_bytes" -u ${fd} ${into} || exit 0`,
	].join("\n");
}

/**
 * Forks the waiting subshells (each closes what its ripgrep must not hold and waits for its
 * command on its stderr socket), says their ids, drops its own copies of the channels, then
 * answers status questions from stdin.
 */
export function launcherScript(): string {
	const lines = ["set +o posix", "LC_ALL=C"];
	const everyChannel: string[] = [];
	for (let channel = 0; channel < CHANNELS; channel++)
		everyChannel.push(`${outFd(channel)}>&-`, `${errFd(channel)}>&-`);
	for (let channel = 0; channel < CHANNELS; channel++) {
		const others = everyChannel.filter(
			(close) => !close.startsWith(`${outFd(channel)}>`) && !close.startsWith(`${errFd(channel)}>`),
		);
		lines.push(
			"(",
			`exec 0</dev/null ${others.join(" ")} ${CONTROL_FD}>&-`,
			readMessage(errFd(channel), "toolbelt_launch"),
			'eval "$toolbelt_launch"',
			"exit 125",
			") &",
			`printf 'P ${channel} %s\\n' "$!" >&${CONTROL_FD}`,
		);
	}
	lines.push(
		`exec ${everyChannel.join(" ")}`,
		"while :; do",
		readMessage(0, "toolbelt_question"),
		'eval "$toolbelt_question"',
		"done",
	);
	return lines.join("\n");
}

/** The launcher's environment: this process's, without what would change how bash itself starts. */
export function launcherEnvironment(): NodeJS.ProcessEnv {
	const environment: NodeJS.ProcessEnv = {};
	for (const [name, value] of Object.entries(process.env)) {
		// TMOUT would end a waiting shell's `read` after that many seconds.
		if (["BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "TMOUT"].includes(name)) continue;
		if (name.startsWith("BASH_FUNC_")) continue;
		environment[name] = value;
	}
	return environment;
}

/** True while `process.env` is still what a launcher was started with. */
export function sameEnvironment(started: [string, string | undefined][]): boolean {
	const now = process.env;
	if (Object.keys(now).length !== started.length) return false;
	return started.every(([name, value]) => now[name] === value);
}

/** `/proc/self/…` (a pinned folder) names this process's descriptor; the shell reaches it through this process's id. */
function folderForShell(cwd: string): string {
	return cwd.startsWith("/proc/self/") ? `/proc/${process.pid}/${cwd.slice("/proc/self/".length)}` : cwd;
}

/**
 * A waiting shell's line that enters the search's folder: one it cannot enter ends the shell with
 * status 125, which reads as a failed launch (the search then starts ripgrep directly).
 */
export function enterFolderLine(cwd: string): string {
	return `cd -- ${singleQuoted(folderForShell(cwd))} 2>/dev/null || exit 125`;
}

/** The line that sets variable `name` back as this process has it, after a shell set or changed it. */
export function restoredVariable(name: string): string {
	const value = process.env[name];
	return value === undefined ? `unset ${name}` : `export ${name}=${singleQuoted(value)}`;
}

/** Variables the shell changed (its start, the launcher's C locale, `cd`), set back as this process has them. */
function restoredVariables(): string[] {
	return ["PWD", "OLDPWD", "SHLVL", "LC_ALL"].map(restoredVariable);
}

/** A subshell's command: enter the folder and become ripgrep, its channel as stdout and stderr. */
export function launchScript(
	channel: number,
	rgPath: string,
	args: readonly string[],
	cwd: string,
): string | undefined {
	const words = [rgPath, ...args];
	if (words.some((word) => word.includes("\0"))) return undefined;
	const out = outFd(channel);
	const err = errFd(channel);
	const launch = [
		enterFolderLine(cwd),
		...restoredVariables(),
		`exec ${words.map(singleQuoted).join(" ")} >&${out} 2>&${err} ${out}>&- ${err}>&-`,
		"",
	].join("\n");
	return Buffer.byteLength(launch) > MAX_LAUNCH_BYTES ? undefined : launch;
}

/** A message as the waiting shells read it: its length in bytes on a line, then the message. */
export function framed(message: string): string {
	return `${Buffer.byteLength(message)}\n${message}`;
}
