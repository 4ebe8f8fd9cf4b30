export { sanitizeTerminalOutput } from "../../workspace/index.js";
export {
	attachRoot,
	CONTAINMENT_VARIABLE,
	type ContainmentMechanism,
	containedCommand,
	createProcessContainment,
	disposeShellProcesses,
	killContainment,
	localShellOperations,
	PROCESS_MARKER_VARIABLE,
	type ProcessContainment,
	type ProcessTree,
	releaseContainment,
	runningBackgroundPids,
	type TerminateOptions,
	terminateContainment,
} from "../../workspace/local/index.js";
export { buildShellEnvironment, nonInteractiveEnvironment } from "./environment.js";
export { prepareShellArguments } from "./prepare-arguments.js";
export { encodePowerShellCommand, resolveBashShell, resolvePowerShell } from "./resolve-shell.js";
export { DEFAULT_MAX_TIMEOUT_SECONDS, DEFAULT_TIMEOUT_SECONDS } from "./run-shell-tool.js";
export { isSecretVariableName, withoutCredentials } from "./secret-variables.js";
export type {
	EscapedProcess,
	ShellExecRequest,
	ShellExecResult,
	ShellFileExecResult,
	ShellNetworkConnection,
	ShellOperations,
	ShellPrepareMoment,
	ShellToolDetails,
	ShellToolOptions,
	ShellTruncation,
} from "./types.js";
