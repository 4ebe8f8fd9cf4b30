export { disposeShellProcesses, runningBackgroundPids } from "./background-registry.js";
export { buildShellEnvironment, nonInteractiveEnvironment } from "./environment.js";
export { localShellOperations } from "./local-operations.js";
export { prepareShellArguments } from "./prepare-arguments.js";
export { encodePowerShellCommand, resolveBashShell, resolvePowerShell } from "./resolve-shell.js";
export { DEFAULT_MAX_TIMEOUT_SECONDS, DEFAULT_TIMEOUT_SECONDS } from "./run-shell-tool.js";
export { sanitizeTerminalOutput } from "./sanitize.js";
export type {
	ShellExecRequest,
	ShellExecResult,
	ShellFileExecResult,
	ShellOperations,
	ShellToolDetails,
	ShellToolOptions,
	ShellTruncation,
} from "./types.js";
