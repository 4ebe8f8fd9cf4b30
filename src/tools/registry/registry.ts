import type { AnyAgentTool, ToolDefinition } from "../../engine/index.js";
import { createJobRegistry, type JobRegistry } from "../jobs/job-registry.js";
import type { ToolEntry, ToolGroup, ToolWorkspace } from "./tool-entry.js";
import { type ToolName, toolTable } from "./tool-table.js";
import type { ToolsOptions } from "./tools-options.js";

export type { ToolWorkspace } from "./tool-entry.js";
export type { ToolName } from "./tool-table.js";

/** Every built-in tool name, in a stable order (the registry's table). */
export const allToolNames: readonly ToolName[] = toolTable.map((entry) => entry.name);

function namesIn(group: ToolGroup): readonly ToolName[] {
	return toolTable.filter((entry) => entry.groups?.includes(group)).map((entry) => entry.name);
}

/**
 * Tools an entry point serves only when they are named: code mode, which an MCP client or a
 * framework with a code mode of its own may not want next to its tools (the MCP server and the
 * framework adapters leave it out unless `tools` names it; the CLI's agent offers it).
 */
export const optInToolNames: readonly ToolName[] = namesIn("optIn");

/** Every built-in tool name except the opt-in ones: what an entry point serves by default. */
export const defaultToolNames: readonly ToolName[] = allToolNames.filter((name) => !optInToolNames.includes(name));

/** Each tool's entry by name, typed loosely: the table's typing ties each entry's parts together. */
const entries = new Map<string, ToolEntry<ToolName, unknown>>(
	toolTable.map((entry) => [entry.name, entry as unknown as ToolEntry<ToolName, unknown>]),
);

/** The tools a coding agent needs to change code: read, write, edit, bash. */
export const codingToolNames: readonly ToolName[] = namesIn("coding");

/** The tools that only look: read, grep, find, ls. */
export const readOnlyToolNames: readonly ToolName[] = namesIn("readOnly");

/**
 * The built-in tools whose calls act on one path (their target's `path`), so that a permission
 * rule naming them takes a path pattern as its specifier: `read(src/**)`, `edit(.env*)`.
 */
export const pathToolNames: readonly ToolName[] = namesIn("path");

/** True when `name` is a built-in tool name. */
export function isToolName(name: string): name is ToolName {
	return (allToolNames as readonly string[]).includes(name);
}

function entryOf(name: ToolName): ToolEntry<ToolName, unknown> {
	const entry = entries.get(name);
	// Names come from configuration and CLI flags too, so check at run time.
	if (!entry) throw new Error(`Unknown tool "${String(name)}". Known tools: ${allToolNames.join(", ")}.`);
	return entry;
}

/** Creates the definition (name, description, schema) of one built-in tool rooted at `cwd`. */
export function createToolDefinition<K extends ToolName>(
	name: K,
	cwd: string,
	options: ToolsOptions = {},
): ToolDefinition {
	return entryOf(name).definition(cwd, options[name]);
}

const jobToolNames: ReadonlySet<ToolName> = new Set(namesIn("jobs"));
const preparingToolNames: ReadonlySet<ToolName> = new Set(namesIn("preparesAhead"));
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
	let own: object | undefined = options[name];
	if (options.prepareAfterMs !== undefined && preparingToolNames.has(name)) {
		own = { prepareAfterMs: options.prepareAfterMs, ...own };
	}
	if (!jobToolNames.has(name)) return entryOf(name).tool(cwd, own);
	const jobs = (own as { jobs?: JobRegistry } | undefined)?.jobs ?? jobRegistryOf(options);
	return entryOf(name).tool(cwd, { ...own, jobs });
}

/** Definitions of the coding tools: read, write, edit, bash. */
export function createCodingToolDefinitions(cwd: string, options: ToolsOptions = {}): ToolDefinition[] {
	return codingToolNames.map((name) => createToolDefinition(name, cwd, options));
}

/** The coding tools: read, write, edit, bash. */
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

/** Definitions of all the built-in tools, by name. */
export function createAllToolDefinitions(cwd: string, options: ToolsOptions = {}): Record<ToolName, ToolDefinition> {
	return Object.fromEntries(allToolNames.map((name) => [name, createToolDefinition(name, cwd, options)])) as Record<
		ToolName,
		ToolDefinition
	>;
}

/** All the built-in tools, by name (the shell and job tools share one session of background jobs). */
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

/**
 * The tool options that make every built-in tool act on `workspace`: the file tools through it,
 * bash and powershell through its shell, grep and find through its `search` operations when it
 * has them. `base` is kept, except where it names another backend: the workspace wins.
 * Prefer `createTools(workspace, options)`, which builds the tools from it directly.
 */
export function workspaceToolsOptions(workspace: ToolWorkspace, base: ToolsOptions = {}): ToolsOptions {
	const options: ToolsOptions = { ...base };
	const own = options as Record<string, unknown>;
	for (const entry of entries.values()) own[entry.name] = entry.seam(workspace, base[entry.name] ?? {});
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
