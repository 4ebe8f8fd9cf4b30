import type { AnyAgentTool } from "../engine/types.js";
import { createTool, readOnlyToolNames, type ToolName, type ToolsOptions } from "./index.js";

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
