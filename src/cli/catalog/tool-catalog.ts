import type * as ToolsModule from "../../tools/index.js";

/**
 * The tools' registry (`src/tools/index.ts`) as the CLI sees it: `allToolNames`,
 * `readOnlyToolNames`, `isToolName`, `createTool`, `createToolDefinition`. The CLI keeps no list
 * of its own.
 */
export type ToolRegistry = typeof ToolsModule;

/** Loads the tools' registry, lazily: the tools pull in sharp, ripgrep and friends. */
export function loadToolCatalog(): Promise<ToolRegistry> {
	return import("../../tools/index.js");
}
