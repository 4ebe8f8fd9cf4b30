import type { FrameworkRequirement } from "../shared/load-framework.js";

/** The Agents SDK version `toolbelt/openai-agents` is built and tested against. It needs `openai` 7, which needs Node 22. */
export const openAIAgentsRequirement: FrameworkRequirement = {
	subpath: "toolbelt/openai-agents",
	packageName: "@openai/agents",
	versionRange: ">=0.20.0 <0.21.0",
	minimumNodeMajor: 22,
};
