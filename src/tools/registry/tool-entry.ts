import type { AnyAgentTool, ToolDefinition } from "../../engine/index.js";
import type { SearchOperations, ShellOperations, Workspace } from "../../workspace/index.js";

/** A workspace, with the search operations of its own when it has them (a remote workspace does). */
export type ToolWorkspace = Workspace & { search?: SearchOperations };

/**
 * The lists a built-in tool can belong to:
 * - `coding`: what a coding agent needs to change code (`codingToolNames`);
 * - `readOnly`: the tools that only look (`readOnlyToolNames`, `--read-only`);
 * - `path`: a call acts on one path, so a permission rule naming the tool takes a path pattern;
 * - `optIn`: an entry point serves it only when named (code mode);
 * - `jobs`: it shares the session's background jobs with the other job tools;
 * - `preparesAhead`: it starts what its first call needs as it is created (`ToolsOptions.prepareAfterMs`).
 */
export type ToolGroup = "coding" | "readOnly" | "path" | "optIn" | "jobs" | "preparesAhead";

/**
 * What the registry knows of one built-in tool, declared by the tool's own module next to its
 * factories: the registry's table lists the entries, and the tool names, the options type and
 * the name lists are derived from it. A new tool is its own module plus one line in that table.
 */
export interface ToolEntry<TName extends string = string, TOptions = never> {
	/** The tool's name (as its definition names it). */
	readonly name: TName;
	/** Its `createXToolDefinition`. */
	readonly definition: (cwd: string, options?: TOptions) => ToolDefinition;
	/** Its `createXTool`. */
	readonly tool: (cwd: string, options?: TOptions) => AnyAgentTool;
	/**
	 * How it is pointed at a workspace (see `toolSeams`): every tool says, so none can be left
	 * acting on this machine's disk (apply_patch once was, when the list was kept by hand).
	 */
	readonly seam: (workspace: ToolWorkspace, base: TOptions) => TOptions;
	/** The lists it belongs to. Default: none. */
	readonly groups?: readonly ToolGroup[];
}

/** Declares a tool's registry entry (typed, so its factories, seam and options agree). */
export function toolEntry<TName extends string, TOptions>(
	entry: ToolEntry<TName, TOptions>,
): ToolEntry<TName, TOptions> {
	return entry;
}

/** The ways a built-in tool is pointed at a workspace. */
export const toolSeams = {
	/** Its files (and path resolution) through the workspace. */
	files: <T extends { workspace?: Workspace }>(workspace: ToolWorkspace, base: T): T => ({ ...base, workspace }),
	/** Its files through the workspace, its search through the workspace's own when it has one. */
	search: <T extends { workspace?: Workspace; operations?: SearchOperations }>(
		workspace: ToolWorkspace,
		base: T,
	): T => ({
		...base,
		workspace,
		...(workspace.search ? { operations: workspace.search } : {}),
	}),
	/** Its commands through the workspace's shell. */
	shell: <T extends { operations?: ShellOperations }>(workspace: ToolWorkspace, base: T): T => ({
		...base,
		operations: workspace.shell,
	}),
	/**
	 * Nothing of its own: it acts through what other tools made there (the job tools on the jobs
	 * bash started; a program through the other tools, which are built from the workspace).
	 */
	none: <T>(_workspace: ToolWorkspace, base: T): T => base,
};
