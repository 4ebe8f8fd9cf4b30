// The built-in tools: each tool's factories and types, the registry that builds them by name.
export type { SearchOperations, SearchStream } from "../workspace/index.js";
export {
	type CommandTarget,
	callTarget,
	commandTarget,
	createLocalWorkspace,
	type DeclaredTarget,
	type DirectoryEntry,
	displayPath,
	editDistance,
	type FileInfo,
	type FileOperations,
	infoIfExists,
	isInsideRoot,
	isWorkspaceTarget,
	type LocalWorkspaceOptions,
	partsOfTarget,
	type ReadableFile,
	type ReplaceFileOptions,
	type ResolvedPath,
	type ResolveOptions,
	realPathOf,
	type Workspace,
	type WorkspaceTarget,
	type WriteFileOptions,
	workspaceOf,
	writeFileAtomic,
} from "../workspace/index.js";
export type { RipgrepLauncher } from "../workspace/local/index.js";
// The ripgrep runner, for search operations that start ripgrep elsewhere (a remote workspace).
export {
	confineFileOperations,
	localFileOperations,
	locateRipgrep,
	ripgrepGrep,
	ripgrepListFiles,
} from "../workspace/local/index.js";
export {
	type ApplyPatchDetails,
	type ApplyPatchToolInput,
	type ApplyPatchToolOptions,
	applyPatchSchema,
	createApplyPatchTool,
	createApplyPatchToolDefinition,
	type PatchFileDetails,
} from "./apply-patch.js";
// Each tool's factories, schema and types, for callers that build one tool with its own options.
export {
	type BashOperations,
	type BashToolDetails,
	type BashToolInput,
	type BashToolOptions,
	bashSchema,
	createBashTool,
	createBashToolDefinition,
} from "./bash.js";
export {
	type BashKillToolInput,
	bashKillSchema,
	createBashKillTool,
	createBashKillToolDefinition,
} from "./bash-kill.js";
export {
	type BashOutputToolDetails,
	type BashOutputToolInput,
	bashOutputSchema,
	createBashOutputTool,
	createBashOutputToolDefinition,
	type JobToolOptions,
} from "./bash-output.js";
export {
	type CodeTool,
	type CodeToolInput,
	type CodeToolOptions,
	codeSchema,
	createCodeTool,
	createCodeToolDefinition,
	DEFAULT_PROGRAM_LIMITS,
} from "./code-mode/code-tool.js";
export type { CodeToolDetails } from "./code-mode/program-result.js";
export {
	createEditTool,
	createEditToolDefinition,
	type EditMatchStrategy,
	type EditOperations,
	type EditToolDetails,
	type EditToolInput,
	type EditToolOptions,
	editSchema,
} from "./edit.js";
export {
	createFindTool,
	createFindToolDefinition,
	type FindToolDetails,
	type FindToolInput,
	type FindToolOptions,
	findSchema,
} from "./find.js";
export {
	createGrepTool,
	createGrepToolDefinition,
	type GrepToolDetails,
	type GrepToolInput,
	type GrepToolOptions,
	grepSchema,
} from "./grep.js";
export type { JobStatus } from "./jobs/job.js";
export {
	createJobRegistry,
	DEFAULT_KEPT_OUTPUT_BYTES,
	DEFAULT_MAX_JOBS,
	JobRegistry,
	type JobRegistryOptions,
	type JobSummary,
} from "./jobs/job-registry.js";
export type { JobDetails } from "./jobs/job-report.js";
export { formatJobList } from "./jobs/job-text.js";
export {
	createLsTool,
	createLsToolDefinition,
	type LsOperations,
	type LsToolDetails,
	type LsToolInput,
	type LsToolOptions,
	lsSchema,
} from "./ls.js";
export { type PatchOperation, parsePatch } from "./patch/parse.js";
export {
	createPowerShellTool,
	createPowerShellToolDefinition,
	type PowerShellOperations,
	type PowerShellToolDetails,
	type PowerShellToolInput,
	type PowerShellToolOptions,
	powerShellSchema,
} from "./powershell.js";
export { fitImage, type ImageLimits } from "./read/image.js";
export {
	createReadTool,
	createReadToolDefinition,
	type ReadOperations,
	type ReadToolDetails,
	type ReadToolInput,
	type ReadToolOptions,
	readSchema,
} from "./read.js";
export {
	allToolNames,
	codingToolNames,
	createAllToolDefinitions,
	createAllTools,
	createCodingToolDefinitions,
	createCodingTools,
	createReadOnlyToolDefinitions,
	createReadOnlyTools,
	createSelectedTools,
	createTool,
	createToolDefinition,
	createTools,
	defaultToolNames,
	isToolName,
	jobRegistryOf,
	optInToolNames,
	pathToolNames,
	readOnlyToolNames,
	type ToolName,
	type ToolSelection,
	type ToolWorkspace,
	workspaceToolsOptions,
} from "./registry/registry.js";
export type { ToolsOptions } from "./registry/tools-options.js";
export {
	attachRoot,
	buildShellEnvironment,
	CONTAINMENT_VARIABLE,
	type ContainmentMechanism,
	containedCommand,
	createProcessContainment,
	disposeShellProcesses,
	isSecretVariableName,
	killContainment,
	localShellOperations,
	PROCESS_MARKER_VARIABLE,
	type ProcessContainment,
	type ProcessTree,
	releaseContainment,
	runningBackgroundPids,
	type ShellExecRequest,
	type ShellExecResult,
	type ShellFileExecResult,
	type ShellNetworkConnection,
	type ShellOperations,
	type ShellPrepareMoment,
	type ShellToolDetails,
	type ShellToolOptions,
	terminateContainment,
	withoutCredentials,
} from "./shell/index.js";
export {
	createToolSearch,
	DEFAULT_TOOL_SEARCH_THRESHOLD,
	TOOL_SEARCH_NAME,
	type ToolSearch,
	type ToolSearchOptions,
} from "./tool-search/index.js";
export {
	createWriteTool,
	createWriteToolDefinition,
	type WriteOperations,
	type WriteToolDetails,
	type WriteToolInput,
	type WriteToolOptions,
	writeSchema,
} from "./write.js";
