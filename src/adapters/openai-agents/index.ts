// `toolbelt/openai-agents`: toolbelt's tools as OpenAI Agents SDK function tools. Loads `@openai/agents` only when imported.
import type { FunctionTool } from "@openai/agents";
import { loadFramework } from "../shared/load-framework.js";
import { type AdapterOptions, createToolbeltToolSet } from "../shared/tool-set.js";
import type { AgentsApprovalBridge } from "./approval-bridge.js";
import { openAIAgentsRequirement } from "./requirement.js";
import { type AgentsToolOutput, toAgentsTools } from "./tools.js";

const agents = await loadFramework(openAIAgentsRequirement, () => import("@openai/agents"));

export { FrameworkUnavailableError } from "../shared/load-framework.js";
export type { AdapterOptions } from "../shared/tool-set.js";
export { type AgentsApprovalBridge, createAgentsApprovalBridge } from "./approval-bridge.js";
export { openAIAgentsRequirement } from "./requirement.js";
export { type AgentsToolOutput, toAgentsOutput } from "./tools.js";

/** Options of `createOpenAIAgentsTools`. */
export interface OpenAIAgentsToolsOptions extends AdapterOptions {
	/**
	 * The bridge whose `ask` the `safety` layer was created with: calls the layer would ask about
	 * get `needsApproval`, so the SDK interrupts the run for approval. Default: none (such calls
	 * are denied with a reason for the model).
	 */
	approvals?: AgentsApprovalBridge;
}

/**
 * toolbelt's tools rooted at `cwd` as `@openai/agents` function tools for an `Agent`. Every call
 * runs through toolbelt's engine (argument repair, validation, hooks and the safety layer, the
 * file mutation queue, truncation) in one call gate, so the SDK's concurrent tool calls keep
 * writes, edits and shells as barriers in reply order. The run's abort signal aborts the call
 * (killing a shell's process tree); images reach the model as image items.
 */
export function createOpenAIAgentsTools(
	cwd: string,
	options: OpenAIAgentsToolsOptions = {},
): FunctionTool<unknown, never, AgentsToolOutput>[] {
	return toAgentsTools(agents, createToolbeltToolSet(cwd, options), {
		safety: options.safety,
		approvals: options.approvals,
	});
}
