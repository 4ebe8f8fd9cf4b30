import { createBashTool } from "../../../src/tools/bash.js";
import type { ShellOperations } from "../../../src/tools/shell/types.js";
import { localShellOperations } from "../../../src/workspace/local/shell/local-operations.js";

/** The local executor without `execToFile`: output reaches toolbelt through a pipe, as from a remote executor. */
export const pipeOnlyOperations: ShellOperations = {
	exec: localShellOperations.exec,
	isDirectory: localShellOperations.isDirectory,
	findExecutable: localShellOperations.findExecutable,
};

/** Both ways output can travel, so each output test runs on both. */
export const outputPaths = [
	{ name: "output into a file", operations: localShellOperations },
	{ name: "output through a pipe", operations: pipeOnlyOperations },
];

/** A bash tool whose commands' output takes the given path. */
export function bashWith(operations: ShellOperations) {
	return (cwd: string, options: Parameters<typeof createBashTool>[1] = {}) =>
		createBashTool(cwd, { operations, ...options });
}
