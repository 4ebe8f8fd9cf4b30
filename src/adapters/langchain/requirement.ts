import type { FrameworkRequirement } from "../shared/load-framework.js";

/** The LangChain.js core version `toolbelt/langchain` is built and tested against (runs on Node 20+). */
export const langChainRequirement: FrameworkRequirement = {
	subpath: "toolbelt/langchain",
	packageName: "@langchain/core",
	versionRange: "^1.4.0",
	minimumNodeMajor: 20,
};
