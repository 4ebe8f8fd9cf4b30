import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";

/**
 * Output into a file goes through a relay. The command gets a real pipe as stdout and stderr
 * (`/dev/stdout`, `tee /dev/stderr` and `> /dev/stderr` work on a pipe; on a file they would
 * reopen it and truncate everything before), and a `cat` copies the pipe into the output file.
 * The relay announces its pid on fd 3 and holds fd 3 until it exits: its end means every byte is
 * in the file. Bash sets this up (process substitution), so the relay exists where bash does.
 */

/** The relay's name in `ps`, so a user who sees it next to a background job knows what it is. */
export const RELAY_NAME = "toolbelt-output-relay";

const savedBashEnvVariable = "TOOLBELT_SAVED_BASH_ENV";
// The relay ignores SIGTERM: when a timeout or abort stops the command, the relay goes on copying
// what the command writes while it dies (a trap's last words), and ends when the pipe closes
// (SIGKILL after the grace period ends it regardless).
// Bash before 4 (macOS) has no $BASHPID: a small sh then tells its own pid, which cat inherits.
const announceAndCopy = `if [ -n "$BASHPID" ]; then printf "%s\\n" "$BASHPID" >&3; exec -a ${RELAY_NAME} cat; else exec sh -c 'printf "%s\\n" "$$" >&3; exec cat'; fi`;
const relayRedirect = `exec > >(trap "" TERM; ${announceAndCopy}) 2>&1 3>&-`;

/** Bash for the wrapper that relays the output of any other program (sh, pwsh…). */
const wrapperShell = process.platform !== "win32" && existsSync("/bin/bash") ? "/bin/bash" : undefined;
const wrapperScript = [
	// The wrapper reads no BASH_ENV (it gets it under another name); the command gets it back.
	'if [ -n "$TOOLBELT_SAVED_BASH_ENV" ]; then export BASH_ENV="$TOOLBELT_SAVED_BASH_ENV"; fi; unset TOOLBELT_SAVED_BASH_ENV',
	relayRedirect,
	// The wrapper becomes the command: the pid, exit status and signal are the command's own.
	'exec "$@"',
].join("\n");

/**
 * For a command that bash itself runs, the relay is set up by the command's own shell, from a
 * `BASH_ENV` file (read before the command, without touching its text or line numbers): one bash
 * start instead of two. The file then hands over to the user's own `BASH_ENV`, if any, and takes
 * itself out of the environment, so the scripts the command runs do not relay again.
 */
const startupScript = [
	relayRedirect,
	'if [ -n "$TOOLBELT_SAVED_BASH_ENV" ]; then BASH_ENV="$TOOLBELT_SAVED_BASH_ENV"; unset TOOLBELT_SAVED_BASH_ENV; if [ -r "$BASH_ENV" ]; then . "$BASH_ENV"; fi; else unset BASH_ENV; fi',
	"",
].join("\n");
let startupFile: string | undefined | null;

/** The `BASH_ENV` file, written once per process (null when it cannot be). */
function startupFilePath(): string | undefined {
	if (startupFile !== undefined) return startupFile ?? undefined;
	try {
		const folder = mkdtempSync(join(tmpdir(), "toolbelt-relay-"));
		const path = join(folder, "relay.bash");
		writeFileSync(path, startupScript, { mode: 0o600 });
		startupFile = path;
		process.once("exit", () => rmSync(folder, { recursive: true, force: true }));
	} catch {
		startupFile = null;
	}
	return startupFile ?? undefined;
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
}

/**
 * Starts a command whose output a relay copies into `outputFile`. The child's fd 3 (`stdio[3]`)
 * carries the relay's pid, then closes when the relay has copied everything.
 */
export function startWithRelay(command: RelayedCommand): ChildProcess {
	const env = { ...command.env };
	const bashEnv = env.BASH_ENV;
	delete env.BASH_ENV;
	if (bashEnv !== undefined) env[savedBashEnvVariable] = bashEnv;
	const options = {
		cwd: command.cwd,
		detached: command.detached,
		windowsHide: true,
		stdio: ["pipe", command.outputFile, command.outputFile, "pipe"] as ("pipe" | number)[],
	};
	const startup = basename(command.file) === "bash" ? startupFilePath() : undefined;
	if (startup) return spawn(command.file, command.args, { ...options, env: { ...env, BASH_ENV: startup } });
	if (!wrapperShell) throw new Error("output relay needs bash, which is not installed");
	const args = ["--norc", "--noprofile", "-c", wrapperScript, "toolbelt-relay", command.file, ...command.args];
	return spawn(wrapperShell, args, { ...options, env });
}
