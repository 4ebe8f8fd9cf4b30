import type { ShellExecRequest, ShellNetworkConnection } from "../../tools/index.js";
import { closerThenCommand, descriptorCloser } from "./descriptor-closer.js";
import type { NetworkSession } from "./network/session.js";

/** The command line of one sandboxed call, and what to undo after it. */
export interface SandboxLaunch {
	/** The program to start. */
	file: string;
	/** Its arguments, up to the command (append the command and its arguments). */
	args: string[];
	/**
	 * Once the command has ended: renames away the nested repositories and project settings it
	 * created (they would run on the host later) and returns what the model must be told. Never throws.
	 */
	finish(): string[];
	/**
	 * With a network policy: the connections the call made or was refused, once it has ended
	 * (call after `finish`). Never throws. Default: none.
	 */
	connections?(): ShellNetworkConnection[];
	/**
	 * Removes the call's file placeholders once the sandbox is gone (and what it left running); folder
	 * placeholders stay until the sandbox is closed (or the process exits). Never throws.
	 */
	release(): Promise<void>;
	/** Variables the command needs on top of its environment (the proxy's, with a network policy). Default: none. */
	env?: Record<string, string>;
	/**
	 * The same start without the `/bin/sh` that opens the seccomp program for bwrap: bwrap itself,
	 * for shell operations that open `readDescriptors` on the command's behalf (one `exec` less a
	 * call). Default: none (with a network policy, whose launcher hands the program over itself).
	 */
	direct?: { file: string; args: string[]; readDescriptors: { fd: number; path: string }[] };
}

/** The descriptor the seccomp program is passed on; a shell opens it for bwrap, which closes it after reading. */
export const seccompFd = 9;
// bwrap reads the filter only from a descriptor; this shell opens the file on it and becomes bwrap.
const seccompLauncherScript = `filter=$1; shift; exec "$@" ${seccompFd}<"$filter"`;

/**
 * The program and arguments that start bwrap: the network launcher with a policy, else the shell
 * that hands bwrap the seccomp program; inside, the descriptor closer comes last, just before the command.
 */
export function startLine(
	bwrapArgs: string[],
	options: { filterFile: string; bwrapPath: string; networked: ReturnType<NetworkSession["launch"]> | undefined },
): Pick<SandboxLaunch, "file" | "args" | "env" | "direct"> {
	const { networked } = options;
	if (networked) {
		// The closer after the bridge: the bridge keeps its channel, the command gets no stray.
		const args = [...networked.before, ...bwrapArgs, ...networked.after, ...descriptorCloser];
		return { file: networked.file, args, env: networked.env };
	}
	const inside = [...bwrapArgs, ...descriptorCloser];
	return {
		file: "/bin/sh",
		args: ["-c", seccompLauncherScript, "toolbelt-sandbox", options.filterFile, options.bwrapPath, ...inside],
		direct: {
			file: options.bwrapPath,
			args: inside,
			readDescriptors: [{ fd: seccompFd, path: options.filterFile }],
		},
	};
}

/** The request's program, arguments, environment and opened files as the sandbox starts it. */
export function launched(
	request: Pick<ShellExecRequest, "env" | "file" | "args" | "tty">,
	launch: SandboxLaunch,
	opensDescriptors: boolean,
): Pick<ShellExecRequest, "file" | "args" | "env" | "readDescriptors"> {
	const env = launch.env ? { ...request.env, ...launch.env } : request.env;
	const command = [request.file, ...request.args];
	// A pseudo-terminal's start opens nothing for the command: the shell hop does it there.
	if (launch.direct && opensDescriptors && !request.tty) {
		const { file, args, readDescriptors } = launch.direct;
		return { file, args: withCommand(args, command, env), env, readDescriptors };
	}
	return { file: launch.file, args: withCommand(launch.args, command, env), env };
}

/**
 * A start line that ends in the descriptor closer (`startLine`), with `command` after it: the
 * closer's words are the ones for this command (`closerThenCommand`: the bash tool's runs in it).
 */
function withCommand(
	line: readonly string[],
	command: readonly string[],
	env: Record<string, string> | undefined,
): string[] {
	const closerAt = line.length - descriptorCloser.length;
	const endsInCloser = closerAt >= 0 && descriptorCloser.every((word, i) => line[closerAt + i] === word);
	if (!endsInCloser) return [...line, ...command];
	return [...line.slice(0, closerAt), ...closerThenCommand(command, env)];
}
