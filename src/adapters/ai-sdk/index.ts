// `toolbelt/ai-sdk`: toolbelt's tools as Vercel AI SDK tools. Loads `ai` only when this subpath is imported.
import { loadFramework } from "../shared/load-framework.js";
import { type AdapterOptions, createToolbeltToolSet } from "../shared/tool-set.js";
import { aiSdkRequirement } from "./requirement.js";
import { type ToolbeltAiSdkTools, toAiSdkTools } from "./tools.js";

const ai = await loadFramework(aiSdkRequirement, () => import("ai"));

export { FrameworkUnavailableError } from "../shared/load-framework.js";
export type { AdapterOptions } from "../shared/tool-set.js";
export { aiSdkRequirement } from "./requirement.js";
export { type ToolbeltAiSdkOutput, type ToolbeltAiSdkTools, toAiSdkModelOutput } from "./tools.js";

/** Options of `createAiSdkTools`. */
export interface AiSdkToolsOptions extends AdapterOptions {}

/**
 * toolbelt's tools rooted at `cwd` as a record of AI SDK tools for `generateText` / `streamText`.
 * Every call runs through toolbelt's engine (argument repair, validation, hooks and the safety
 * layer, the file mutation queue, truncation) in one call gate, so the SDK's parallel execution
 * keeps writes, edits and shells as barriers in reply order. The SDK's `abortSignal` aborts the
 * call (killing a shell's process tree); images reach the model as image parts.
 */
export function createAiSdkTools(cwd: string, options: AiSdkToolsOptions = {}): ToolbeltAiSdkTools {
	return toAiSdkTools(ai, createToolbeltToolSet(cwd, options));
}
