import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import type {
	ShellExecRequest,
	ShellExecResult,
	ShellFileExecResult,
	ShellOperations,
	ShellPrepareMoment,
} from "../../shell/exec-types.js";
import { runLocalCommand } from "./local-run.js";
import { canRelayOutput } from "./output-relay.js";
import { opensDescriptors } from "./process-start.js";
import { prepareCallShell, prepareToolShell } from "./standby-shell.js";
import { runTtyCommand } from "./tty-run.js";

// The checks below are single system calls on metadata: on this thread they cost microseconds,
// where a trip through the thread pool costs more (and starts the pool on a process's first call).

function isExecutableFile(path: string): boolean {
	try {
		if (!statSync(path).isFile()) return false;
		if (process.platform !== "win32") accessSync(path, constants.X_OK);
		return true;
	} catch {
		return false;
	}
}

async function findExecutable(nameOrPath: string, env: Record<string, string>): Promise<string | undefined> {
	if (isAbsolute(nameOrPath) || nameOrPath.includes("/") || nameOrPath.includes("\\")) {
		return isExecutableFile(nameOrPath) ? nameOrPath : undefined;
	}
	const searchPath = env.PATH ?? env.Path ?? "";
	const extensions =
		process.platform === "win32" && !/\.[^.]+$/.test(nameOrPath)
			? (env.PATHEXT ?? ".COM;.EXE;.BAT;.CMD").split(";")
			: [""];
	for (const directory of searchPath.split(delimiter)) {
		if (directory === "") continue;
		for (const extension of extensions) {
			const candidate = join(directory, nameOrPath + extension);
			if (isExecutableFile(candidate)) return candidate;
		}
	}
	return undefined;
}

async function isDirectory(path: string): Promise<boolean> {
	try {
		return statSync(path).isDirectory();
	} catch {
		return false;
	}
}

function exec(request: ShellExecRequest): Promise<ShellExecResult> {
	if (request.tty) return runTtyCommand(request);
	return runLocalCommand(request, undefined);
}

function execToFile(request: Omit<ShellExecRequest, "onData">, outputFile: number): Promise<ShellFileExecResult> {
	return runLocalCommand(request, outputFile);
}

/**
 * Runs shells as local child processes, each in its own containment (a cgroup on Linux where one
 * is writable, else its own process group and a marked environment), with tree kill. On
 * POSIX it can also point a shell's output straight into a file (`execToFile`). `tty: true`
 * runs the command under a pseudo-terminal (through a PTY package loaded on first use).
 */
export const localShellOperations: ShellOperations = {
	exec,
	...(canRelayOutput
		? {
				prepare: (cwd: string, moment?: ShellPrepareMoment) =>
					(moment === "created" ? prepareToolShell : prepareCallShell)(cwd),
			}
		: {}),
	isDirectory,
	findExecutable,
	...(canRelayOutput ? { execToFile } : {}),
	opensDescriptors,
};
