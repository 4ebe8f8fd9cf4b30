import type { AnyAgentTool, ToolDefinition } from "../engine/index.js";
import type { SearchOperations, Workspace } from "../workspace/index.js";
import { createApplyPatchTool, createApplyPatchToolDefinition } from "./apply-patch.js";
import { createBashTool, createBashToolDefinition } from "./bash.js";
import { createBashKillTool, createBashKillToolDefinition } from "./bash-kill.js";
import { createBashOutputTool, createBashOutputToolDefinition } from "./bash-output.js";
import { createCodeTool, createCodeToolDefinition } from "./code-mode/code-tool.js";
import { createEditTool, createEditToolDefinition } from "./edit.js";
import { createFindTool, createFindToolDefinition } from "./find.js";
import { createGrepTool, createGrepToolDefinition } from "./grep.js";
import { createJobRegistry, type JobRegistry } from "./jobs/job-registry.js";
import { createLsTool, createLsToolDefinition } from "./ls.js";
import { createPowerShellTool, createPowerShellToolDefinition } from "./powershell.js";
import { createReadTool, createReadToolDefinition } from "./read.js";
import type { ToolsOptions } from "./tools-options.js";
import { createWriteTool, createWriteToolDefinition } from "./write.js";

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
	| "ls"
	| "code";

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
	"code",
];

/**
 * Tools an entry point serves only when they are named: code mode, which an MCP client or a
 * framework with a code mode of its own may not want next to its tools (the MCP server and the
 * framework adapters leave it out unless `tools` names it; the CLI's agent offers it).
 */
export const optInToolNames: readonly ToolName[] = ["code"];

/** Every built-in tool name except the opt-in ones: what an entry point serves by default. */
export const defaultToolNames: readonly ToolName[] = allToolNames.filter((name) => !optInToolNames.includes(name));

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
	code: { definition: createCodeToolDefinition, tool: createCodeTool },
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

/** Which tools an entry point that serves toolbelt's tools (a framework adapter, the MCP server) creates. */
export interface ToolSelection {
	/**
	 * Which built-in tools to create. Default: the entry point's own list (every tool but
	 * powershell for a framework adapter, all of them for the MCP server).
	 */
	tools?: readonly ToolName[];
	/** Only read, grep, find and ls (overrides `tools`). Default: false. */
	readOnly?: boolean;
	/** Per-tool options (timeouts, budgets, operations). Default: none. */
	toolsOptions?: ToolsOptions;
	/** More tools served next to the built-in ones (e.g. from an embedding application). Default: none. */
	extraTools?: readonly AnyAgentTool[];
}

/**
 * The tools a selection names: the built-in ones (or `defaultNames` when it names none) created
 * in `cwd` with `toolsOptions`, then its extra tools.
 */
export function createSelectedTools(
	cwd: string,
	selection: ToolSelection,
	defaultNames: readonly ToolName[],
	toolsOptions: ToolsOptions | undefined = selection.toolsOptions,
): AnyAgentTool[] {
	const names = selection.readOnly ? readOnlyToolNames : (selection.tools ?? defaultNames);
	return [...names.map((name) => createTool(name, cwd, toolsOptions)), ...(selection.extraTools ?? [])];
}

/** A workspace, with the search operations of its own when it has them (a remote workspace does). */
export type ToolWorkspace = Workspace & { search?: SearchOperations };

/**
 * How each built-in tool is pointed at a workspace. A table over every `ToolName`, so a new tool
 * that is not listed here does not compile (apply_patch was once left out of a hand-written list
 * and wrote this machine's disk on a remote workspace).
 */
const workspaceSeams: { [K in ToolName]: (workspace: ToolWorkspace, base: PerToolOptions[K]) => PerToolOptions[K] } = {
	read: (workspace, base) => ({ ...base, workspace }),
	write: (workspace, base) => ({ ...base, workspace }),
	edit: (workspace, base) => ({ ...base, workspace }),
	apply_patch: (workspace, base) => ({ ...base, workspace }),
	ls: (workspace, base) => ({ ...base, workspace }),
	grep: (workspace, base) => ({ ...base, workspace, ...(workspace.search ? { operations: workspace.search } : {}) }),
	find: (workspace, base) => ({ ...base, workspace, ...(workspace.search ? { operations: workspace.search } : {}) }),
	bash: (workspace, base) => ({ ...base, operations: workspace.shell }),
	powershell: (workspace, base) => ({ ...base, operations: workspace.shell }),
	// The job tools act on the session's background jobs, which bash and powershell started there.
	bash_output: (_workspace, base) => base,
	bash_kill: (_workspace, base) => base,
	// A program acts only through the other tools, which are built from the workspace.
	code: (_workspace, base) => base,
};

/**
 * The tool options that make every built-in tool act on `workspace`: the file tools through it,
 * bash and powershell through its shell, grep and find through its `search` operations when it
 * has them. `base` is kept, except where it names another backend: the workspace wins.
 * Prefer `createTools(workspace, options)`, which builds the tools from it directly.
 */
export function workspaceToolsOptions(workspace: ToolWorkspace, base: ToolsOptions = {}): ToolsOptions {
	const options: ToolsOptions = { ...base };
	for (const name of allToolNames) {
		const seam = workspaceSeams[name] as (workspace: ToolWorkspace, base: unknown) => never;
		options[name] = seam(workspace, base[name] ?? {});
	}
	return options;
}

/**
 * The built-in tools built from a workspace: each acts on its files, its shell and its search,
 * whatever machine it lives on, and none falls back to this machine's disk.
 *
 * @example
 * const workspace = createWorkspaceFromUrl("ssh://dev@box/home/dev/app");
 * const tools = createTools(workspace, { bash: { timeoutMs: 60_000 } });
 * // … run calls …
 * await workspace.close();
 */
export function createTools(workspace: ToolWorkspace, options: ToolsOptions = {}): Record<ToolName, AnyAgentTool> {
	return createAllTools(workspace.cwd, workspaceToolsOptions(workspace, options));
}
