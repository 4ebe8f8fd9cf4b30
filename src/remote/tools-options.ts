import type { ToolsOptions, Workspace } from "../tools/index.js";

/**
 * The tool options that make every built-in tool act on `workspace`: the file tools through it,
 * bash and powershell through its shell. grep and find take it for paths; their search runs where
 * `search` (if given) runs it. Merge your own options over the result.
 */
export function workspaceToolsOptions(workspace: Workspace, base: ToolsOptions = {}): ToolsOptions {
	const shell = { operations: workspace.shell };
	return {
		...base,
		read: { ...base.read, workspace },
		write: { ...base.write, workspace },
		edit: { ...base.edit, workspace },
		ls: { ...base.ls, workspace },
		grep: { ...base.grep, workspace },
		find: { ...base.find, workspace },
		bash: { ...base.bash, ...shell },
		powershell: { ...base.powershell, ...shell },
	};
}
