// `toolbelt/langchain`: toolbelt's tools as LangChain.js tools. Loads `@langchain/core` only when imported.
import type { DynamicStructuredTool } from "@langchain/core/tools";
import { loadFramework } from "../shared/load-framework.js";
import { type AdapterOptions, createToolbeltToolSet } from "../shared/tool-set.js";
import { langChainRequirement } from "./requirement.js";
import { toLangChainTools } from "./tools.js";

const [tools, messages] = await Promise.all([
	loadFramework(langChainRequirement, () => import("@langchain/core/tools")),
	loadFramework(langChainRequirement, () => import("@langchain/core/messages")),
]);

export { FrameworkUnavailableError } from "../shared/load-framework.js";
export type { AdapterOptions } from "../shared/tool-set.js";
export { langChainRequirement } from "./requirement.js";
export { type LangChainToolContent, type ToolbeltArtifact, toLangChainContent } from "./tools.js";

/** Options of `createLangChainTools`. */
export interface LangChainToolsOptions extends AdapterOptions {}

/**
 * toolbelt's tools rooted at `cwd` as LangChain.js structured tools (`bindTools`, LangGraph's
 * `ToolNode`, `createAgent`). Every call runs through toolbelt's engine (argument repair,
 * validation, hooks and the safety layer, the file mutation queue, truncation) in one call gate,
 * so concurrent calls of one reply keep writes, edits and shells as barriers in reply order.
 * LangChain's `signal` aborts the call (killing a shell's process tree); results are
 * content-and-artifact, with images as standard image blocks and `details` as the artifact.
 */
export function createLangChainTools(cwd: string, options: LangChainToolsOptions = {}): DynamicStructuredTool[] {
	return toLangChainTools({ tool: tools.tool, ToolMessage: messages.ToolMessage }, createToolbeltToolSet(cwd, options));
}
