export { disposeShellProcesses, runningBackgroundPids } from "./background-registry.js";
export { CONTAINMENT_VARIABLE } from "./cgroup.js";
export {
	attachRoot,
	type ContainmentMechanism,
	containedCommand,
	createProcessContainment,
	killContainment,
	type ProcessContainment,
	releaseContainment,
	terminateContainment,
} from "./containment.js";
export { buildShellEnvironment, nonInteractiveEnvironment } from "./environment.js";
export { localShellOperations } from "./local-operations.js";
export { prepareShellArguments } from "./prepare-arguments.js";
export { PROCESS_MARKER_VARIABLE, type ProcessTree, type TerminateOptions } from "./process-tree.js";
export { encodePowerShellCommand, resolveBashShell, resolvePowerShell } from "./resolve-shell.js";
export { DEFAULT_MAX_TIMEOUT_SECONDS, DEFAULT_TIMEOUT_SECONDS } from "./run-shell-tool.js";
export { sanitizeTerminalOutput } from "./sanitize.js";
export { isSecretVariableName } from "./secret-variables.js";
export type {
	EscapedProcess,
	ShellExecRequest,
	ShellExecResult,
	ShellFileExecResult,
	ShellOperations,
	ShellToolDetails,
	ShellToolOptions,
	ShellTruncation,
} from "./types.js";
