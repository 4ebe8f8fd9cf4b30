import type { ShellExecRequest, ShellNetworkConnection } from "../../tools/index.js";
import { type ReadDescriptor, singleQuoted } from "../../workspace/index.js";
import { closerThenCommand, descriptorCloser, descriptorCloserShell } from "./descriptor-closer.js";
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
	 * The same start without the shell that opens bwrap's descriptors (the seccomp program, the bind
	 * sources): bwrap itself (or the network launcher), for shell operations that open
	 * `readDescriptors` on the command's behalf (one `exec` less a call). Default: none.
	 */
	direct?: { file: string; args: string[]; readDescriptors: ReadDescriptor[] };
}

/** The descriptor the seccomp program is passed on; a shell opens it for bwrap, which closes it after reading. */
export const seccompFd = 9;

/**
 * The shell that opens bwrap's descriptors (the seccomp program, the bind sources, see
 * bind-sources.ts) and becomes bwrap: bash, whose redirections name descriptors above 9, in POSIX
 * mode, so that it reads no `BASH_ENV` from the command's environment out here. Its one command is
 * `exec`, a special builtin, which no function from the environment can stand in for there.
 */
function openerLine(reads: readonly ReadDescriptor[]): string[] {
	const redirections = reads.map(({ fd, path }) => `${fd}<${singleQuoted(path)}`).join(" ");
	return [descriptorCloserShell, "--posix", "-c", `exec "$@" ${redirections}`, "toolbelt-sandbox"];
}

/**
 * The program and arguments that start bwrap: the network launcher with a policy, else bwrap, with
 * the files it reads on descriptors (`reads`: the seccomp program without a policy, whose launcher
 * opens it itself; the bind sources always), behind the shell that opens them; `direct` is the same
 * start without that shell, for operations that open `readDescriptors` themselves. Inside, the
 * descriptor closer comes last, just before the command.
 */
export function startLine(
	bwrapArgs: string[],
	options: {
		filterFile: string;
		bwrapPath: string;
		networked: ReturnType<NetworkSession["launch"]> | undefined;
		/** The bind sources bwrap reads on descriptors (`BindSources.reads`). */
		sources: readonly ReadDescriptor[];
	},
): Pick<SandboxLaunch, "file" | "args" | "env" | "direct"> {
	const { networked } = options;
	// The closer after the bridge: the bridge keeps its channel, the command gets no stray.
	const direct = networked
		? {
				file: networked.file,
				args: [...networked.before, ...bwrapArgs, ...networked.after, ...descriptorCloser],
				readDescriptors: [...options.sources],
			}
		: {
				file: options.bwrapPath,
				args: [...bwrapArgs, ...descriptorCloser],
				readDescriptors: [{ fd: seccompFd, path: options.filterFile }, ...options.sources],
			};
	const [file = descriptorCloserShell, ...opener] = openerLine(direct.readDescriptors);
	return { file, args: [...opener, direct.file, ...direct.args], env: networked?.env, direct };
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
