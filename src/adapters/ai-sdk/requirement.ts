import type { FrameworkRequirement } from "../shared/load-framework.js";

/** The AI SDK version `toolbelt/ai-sdk` is built and tested against. AI SDK 7 needs Node 22. */
export const aiSdkRequirement: FrameworkRequirement = {
	subpath: "toolbelt/ai-sdk",
	packageName: "ai",
	versionRange: "^7.0.0",
	minimumNodeMajor: 22,
};
