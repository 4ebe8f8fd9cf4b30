import type { AnyAgentTool, ToolDefinition } from "../engine/types.js";
import type { ToolsOptions } from "../tools/index.js";
import type { ToolCatalog } from "./tool-selection.js";

/** The tool registry as the CLI uses it: names plus factories by name. */
export interface LoadedToolCatalog extends ToolCatalog {
	/** Creates the definition of the tool `name`, rooted at `cwd`. */
	definition(name: string, cwd: string): ToolDefinition;
	/** Creates the runnable tool `name`, rooted at `cwd`, with its entry of `options` (e.g. the sandboxed shell). Default: no options. */
	tool(name: string, cwd: string, options?: ToolsOptions): AnyAgentTool;
}

/** Loads the tool registry (lazily: the tools pull in sharp, ripgrep and friends). */
export async function loadToolCatalog(): Promise<LoadedToolCatalog> {
	const registry = await import("../tools/index.js");
	const known = (name: string) => {
		if (!registry.isToolName(name)) {
			throw new Error(`Unknown tool "${name}". Known tools: ${registry.allToolNames.join(", ")}.`);
		}
		return name;
	};
	return {
		allNames: registry.allToolNames,
		readOnlyNames: registry.readOnlyToolNames,
		definition: (name, cwd) => registry.createToolDefinition(known(name), cwd),
		tool: (name, cwd, options) => registry.createTool(known(name), cwd, options),
	};
}
