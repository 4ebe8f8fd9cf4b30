import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import { delimiter, isAbsolute, join } from "node:path";
import type {
	ShellExecRequest,
	ShellExecResult,
	ShellFileExecResult,
	ShellOperations,
} from "../../shell/exec-types.js";
import { opensDescriptors, runLocalCommand } from "./local-run.js";
import { canRelayOutput } from "./output-relay.js";
import { prepareCallShell } from "./standby-shell.js";
import { runTtyCommand } from "./tty-run.js";

async function isExecutableFile(path: string): Promise<boolean> {
	try {
		const info = await stat(path);
		if (!info.isFile()) return false;
		if (process.platform !== "win32") await access(path, constants.X_OK);
		return true;
	} catch {
		return false;
	}
}

async function findExecutable(nameOrPath: string, env: Record<string, string>): Promise<string | undefined> {
	if (isAbsolute(nameOrPath) || nameOrPath.includes("/") || nameOrPath.includes("\\")) {
		return (await isExecutableFile(nameOrPath)) ? nameOrPath : undefined;
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
			if (await isExecutableFile(candidate)) return candidate;
		}
	}
	return undefined;
}

async function isDirectory(path: string): Promise<boolean> {
	try {
		return (await stat(path)).isDirectory();
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
	...(canRelayOutput ? { prepare: prepareCallShell } : {}),
	isDirectory,
	findExecutable,
	...(canRelayOutput ? { execToFile } : {}),
	opensDescriptors,
};
