import type { LoadedSettings } from "../../src/safety/index.js";

/** Settings as loaded from no file at all: a safety layer built with them reads no settings disk. */
export const noSettings: LoadedSettings = {
	sources: [],
	rules: [],
	additionalDirectories: [],
	preToolUse: [],
	postToolUse: [],
	sandbox: {},
};
