import type { ToolResult, ToolUpdateCallback } from "../../engine/types.js";
import type { ShellResolver } from "./resolve-shell.js";
import type { ShellToolDetails, ShellToolOptions } from "./types.js";

/** One call of a shell tool. */
export interface RunShellToolInput {
	/** The tool's working directory. */
	cwd: string;
	/** The tool's options. */
	options: ShellToolOptions;
	/** The command as the model sent it. */
	command: string;
	/** The timeout the model asked for, in seconds. Default: the tool's default timeout. */
	timeoutSeconds?: number;
	/** Aborts the command (kills its process tree). */
	signal?: AbortSignal;
	/** Receives the growing tail of the output. */
	onUpdate?: ToolUpdateCallback<ShellToolDetails>;
	/** Finds the shell and builds its arguments. */
	resolveShell: ShellResolver;
}

/** Runs one shell command for a tool. */
export async function runShellTool(_input: RunShellToolInput): Promise<ToolResult<ShellToolDetails>> {
	throw new Error("The shell runner is not implemented yet.");
}
