import { allToolNames, optInToolNames } from "../../src/tools/index.js";

/**
 * The built-in tools an entry point offers by default here, in the registry's order, derived
 * from the registry's table (so a new tool needs no edit in the tests that list them): every tool
 * but powershell off Windows, and but the opt-in ones (code mode) unless `agent` (the CLI's agent
 * offers them); `patches: false` (a model not trained on the patch format) drops apply_patch.
 */
export function defaultToolsHere(options: { agent?: boolean; patches?: boolean } = {}): string[] {
	return allToolNames.filter(
		(name) =>
			(process.platform === "win32" || name !== "powershell") &&
			(options.agent === true || !optInToolNames.includes(name)) &&
			(options.patches !== false || name !== "apply_patch"),
	);
}
