import type { AnyAgentTool, ToolDefinition } from "../engine/types.js";
import { createApplyPatchTool, createApplyPatchToolDefinition } from "./apply-patch.js";
import { type BashToolOptions, createBashTool, createBashToolDefinition } from "./bash.js";
import { createBashKillTool, createBashKillToolDefinition } from "./bash-kill.js";
import { createBashOutputTool, createBashOutputToolDefinition, type JobToolOptions } from "./bash-output.js";
import { createEditTool, createEditToolDefinition, type EditToolOptions } from "./edit.js";
import { createFindTool, createFindToolDefinition, type FindToolOptions } from "./find.js";
import { createGrepTool, createGrepToolDefinition, type GrepToolOptions } from "./grep.js";
import { createJobRegistry, type JobRegistry } from "./jobs/job-registry.js";
import { createLsTool, createLsToolDefinition, type LsToolOptions } from "./ls.js";
import type { ApplyPatchToolOptions } from "./patch/types.js";
import { createPowerShellTool, createPowerShellToolDefinition, type PowerShellToolOptions } from "./powershell.js";
import { createReadTool, createReadToolDefinition, type ReadToolOptions } from "./read.js";
import { createWriteTool, createWriteToolDefinition, type WriteToolOptions } from "./write.js";

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
export { writeFileAtomic } from "./fs/atomic-write.js";
export { confineFileOperations } from "./fs/confined-operations.js";
export { editDistance } from "./fs/near-miss.js";
export {
	type DirectoryEntry,
	type FileInfo,
	type FileOperations,
	infoIfExists,
	localFileOperations,
	type ReadableFile,
	type ReplaceFileOptions,
	type WriteFileOptions,
} from "./fs/operations.js";
export { displayPath } from "./fs/paths.js";
export { isInsideRoot, realPathOf } from "./fs/real-path.js";
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
export {
	createReadTool,
	createReadToolDefinition,
	type ReadOperations,
	type ReadToolDetails,
	type ReadToolInput,
	type ReadToolOptions,
	readSchema,
} from "./read.js";
// The ripgrep runner, for search operations that start ripgrep elsewhere (a remote workspace).
export { ripgrepGrep, ripgrepListFiles } from "./search/ripgrep-backend.js";
export { locateRipgrep } from "./search/ripgrep-path.js";
export type { RipgrepLauncher } from "./search/ripgrep-process.js";
export type { SearchOperations, SearchStream } from "./search/types.js";
export {
	attachRoot,
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
	type ShellOperations,
	type ShellToolDetails,
	type ShellToolOptions,
	terminateContainment,
} from "./shell/index.js";
export {
	type CommandTarget,
	callTarget,
	commandTarget,
	createLocalWorkspace,
	type DeclaredTarget,
	isWorkspaceTarget,
	type LocalWorkspaceOptions,
	partsOfTarget,
	type ResolvedPath,
	type ResolveOptions,
	type Workspace,
	type WorkspaceTarget,
	workspaceOf,
} from "./workspace.js";
export {
	createWriteTool,
	createWriteToolDefinition,
	type WriteOperations,
	type WriteToolDetails,
	type WriteToolInput,
	type WriteToolOptions,
	writeSchema,
} from "./write.js";

/** The names of the built-in tools. */
export type ToolName =
	| "read"
	| "write"
	| "edit"
	| "apply_patch"
	| "bash"
	| "powershell"
	| "bash_output"
	| "bash_kill"
	| "grep"
	| "find"
	| "ls";

/** Every built-in tool name, in a stable order. */
export const allToolNames: readonly ToolName[] = [
	"read",
	"write",
	"edit",
	"apply_patch",
	"bash",
	"powershell",
	"bash_output",
	"bash_kill",
	"grep",
	"find",
	"ls",
];

/** Options for the built-in tools: one optional entry per tool. */
export interface ToolsOptions {
	/** Options of the read tool. */
	read?: ReadToolOptions;
	/** Options of the write tool. */
	write?: WriteToolOptions;
	/** Options of the edit tool. */
	edit?: EditToolOptions;
	/** Options of the apply_patch tool. */
	apply_patch?: ApplyPatchToolOptions;
	/** Options of the bash tool. */
	bash?: BashToolOptions;
	/** Options of the powershell tool. */
	powershell?: PowerShellToolOptions;
	/** Options of the grep tool. */
	grep?: GrepToolOptions;
	/** Options of the find tool. */
	find?: FindToolOptions;
	/** Options of the ls tool. */
	ls?: LsToolOptions;
	/** Options of the bash_output tool. */
	bash_output?: JobToolOptions;
	/** Options of the bash_kill tool. */
	bash_kill?: JobToolOptions;
	/**
	 * The session's background jobs, shared by bash, powershell, bash_output and bash_kill (a
	 * tool's own `jobs` option wins). Default: one registry per options object, so every tool
	 * made from the same options shares it; end it with `dispose()` or `disposeShellProcesses()`.
	 */
	jobs?: JobRegistry;
}

type PerToolOptions = Omit<ToolsOptions, "jobs">;

type Factories = {
	[K in ToolName]: {
		definition(cwd: string, options?: PerToolOptions[K]): ToolDefinition;
		tool(cwd: string, options?: PerToolOptions[K]): AnyAgentTool;
	};
};

const factories: Factories = {
	read: { definition: createReadToolDefinition, tool: createReadTool },
	write: { definition: createWriteToolDefinition, tool: createWriteTool },
	edit: { definition: createEditToolDefinition, tool: createEditTool },
	apply_patch: { definition: createApplyPatchToolDefinition, tool: createApplyPatchTool },
	bash: { definition: createBashToolDefinition, tool: createBashTool },
	powershell: { definition: createPowerShellToolDefinition, tool: createPowerShellTool },
	bash_output: { definition: createBashOutputToolDefinition, tool: createBashOutputTool },
	bash_kill: { definition: createBashKillToolDefinition, tool: createBashKillTool },
	grep: { definition: createGrepToolDefinition, tool: createGrepTool },
	find: { definition: createFindToolDefinition, tool: createFindTool },
	ls: { definition: createLsToolDefinition, tool: createLsTool },
};

/** The tools a coding agent needs to change code: read, bash, edit, write. */
export const codingToolNames: readonly ToolName[] = ["read", "bash", "edit", "write"];

/** The tools that only look: read, grep, find, ls. */
export const readOnlyToolNames: readonly ToolName[] = ["read", "grep", "find", "ls"];

/**
 * The built-in tools whose calls act on one path (their target's `path`), so that a permission
 * rule naming them takes a path pattern as its specifier: `read(src/**)`, `edit(.env*)`.
 */
export const pathToolNames: readonly ToolName[] = ["read", "write", "edit", "ls", "grep", "find"];

/** True when `name` is a built-in tool name. */
export function isToolName(name: string): name is ToolName {
	return (allToolNames as readonly string[]).includes(name);
}

function factoryOf<K extends ToolName>(name: K): Factories[K] {
	// Names come from configuration and CLI flags too, so check at run time.
	if (!isToolName(name)) throw new Error(`Unknown tool "${String(name)}". Known tools: ${allToolNames.join(", ")}.`);
	return factories[name];
}

/** Creates the definition (name, description, schema) of one built-in tool rooted at `cwd`. */
export function createToolDefinition<K extends ToolName>(
	name: K,
	cwd: string,
	options: ToolsOptions = {},
): ToolDefinition {
	return factoryOf(name).definition(cwd, options[name]);
}

const jobToolNames: ReadonlySet<ToolName> = new Set(["bash", "powershell", "bash_output", "bash_kill"]);
const sessionJobs = new WeakMap<ToolsOptions, JobRegistry>();

/** The job registry tools made from `options` share (see `ToolsOptions.jobs`). */
export function jobRegistryOf(options: ToolsOptions): JobRegistry {
	if (options.jobs) return options.jobs;
	let jobs = sessionJobs.get(options);
	if (!jobs) {
		jobs = createJobRegistry();
		sessionJobs.set(options, jobs);
	}
	return jobs;
}

/**
 * Creates one runnable built-in tool rooted at `cwd`. The shell and job tools made from the same
 * `options` object share one session of background jobs.
 */
export function createTool<K extends ToolName>(name: K, cwd: string, options: ToolsOptions = {}): AnyAgentTool {
	const own = options[name];
	if (!jobToolNames.has(name)) return factoryOf(name).tool(cwd, own);
	const jobs = (own as { jobs?: JobRegistry } | undefined)?.jobs ?? jobRegistryOf(options);
	return factoryOf(name).tool(cwd, { ...own, jobs } as PerToolOptions[K]);
}

/** Definitions of the coding tools: read, bash, edit, write. */
export function createCodingToolDefinitions(cwd: string, options: ToolsOptions = {}): ToolDefinition[] {
	return codingToolNames.map((name) => createToolDefinition(name, cwd, options));
}

/** The coding tools: read, bash, edit, write. */
export function createCodingTools(cwd: string, options: ToolsOptions = {}): AnyAgentTool[] {
	return codingToolNames.map((name) => createTool(name, cwd, options));
}

/** Definitions of the read-only tools: read, grep, find, ls. */
export function createReadOnlyToolDefinitions(cwd: string, options: ToolsOptions = {}): ToolDefinition[] {
	return readOnlyToolNames.map((name) => createToolDefinition(name, cwd, options));
}

/** The read-only tools: read, grep, find, ls. */
export function createReadOnlyTools(cwd: string, options: ToolsOptions = {}): AnyAgentTool[] {
	return readOnlyToolNames.map((name) => createTool(name, cwd, options));
}

/** Definitions of all 11 built-in tools, by name. */
export function createAllToolDefinitions(cwd: string, options: ToolsOptions = {}): Record<ToolName, ToolDefinition> {
	return Object.fromEntries(allToolNames.map((name) => [name, createToolDefinition(name, cwd, options)])) as Record<
		ToolName,
		ToolDefinition
	>;
}

/** All 11 built-in tools, by name (the shell and job tools share one session of background jobs). */
export function createAllTools(cwd: string, options: ToolsOptions = {}): Record<ToolName, AnyAgentTool> {
	return Object.fromEntries(allToolNames.map((name) => [name, createTool(name, cwd, options)])) as Record<
		ToolName,
		AnyAgentTool
	>;
}
