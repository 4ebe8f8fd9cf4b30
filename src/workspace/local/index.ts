// The local backend: this machine's disk, processes and search (ripgrep, else the built-in walker).

export { confineFileOperations } from "./files/confined-operations.js";
export { type PinnedFolder, pinLocalFolder } from "./files/fd-confined-operations.js";
export { localFileOperations } from "./files/operations.js";
export {
	disposeShellProcesses,
	MAX_RETAINED_OUTPUT_BYTES,
	MAX_RETAINED_OUTPUT_FILES,
	registerOutputFile,
	registerSessionCleanup,
	releaseOutputFile,
	releaseSmallOutputFile,
	runningBackgroundPids,
	settleOutputFile,
} from "./process/background-registry.js";
export { CONTAINMENT_VARIABLE } from "./process/cgroup.js";
export {
	attachRoot,
	type ContainmentMechanism,
	containedCommand,
	createProcessContainment,
	killContainment,
	type ProcessContainment,
	releaseContainment,
	terminateContainment,
} from "./process/containment.js";
export { waitForEndsSync } from "./process/exit-wait.js";
export { atProcessEnd, type ProcessEndOptions } from "./process/process-end.js";
export {
	PROCESS_MARKER_VARIABLE,
	type ProcessTree,
	processGroupOf,
	type TerminateOptions,
} from "./process/process-tree.js";
export { signalChild, signalProcess, signalProcessGroup, stopProcess } from "./process/signal.js";
export {
	findTrustedProgram,
	noteWritableRoots,
	ProgramNotFoundError,
	requireTrustedProgram,
	SYSTEM_PROGRAM_FOLDERS,
	useProgramPath,
} from "./programs/trusted-programs.js";
export { searchThroughFiles } from "./search/files-search.js";
export { createSearchOperations } from "./search/operations.js";
export { ripgrepGrep, ripgrepListFiles } from "./search/ripgrep-backend.js";
export { locateRipgrep } from "./search/ripgrep-path.js";
export type { RipgrepLauncher } from "./search/ripgrep-process.js";
export { localShellOperations } from "./shell/local-operations.js";
export { inPlaceLaunchLine, inPlaceScript } from "./shell/standby-in-place.js";
