import type { SearchOperations, ToolsOptions, Workspace } from "../tools/index.js";

/**
 * The tool options that make every built-in tool act on `workspace`: the file tools through it,
 * bash and powershell through its shell, grep and find through its `search` operations when it
 * has them (a remote workspace does). Merge your own options over the result.
 */
export function workspaceToolsOptions(
	workspace: Workspace & { search?: SearchOperations },
	base: ToolsOptions = {},
): ToolsOptions {
	const shell = { operations: workspace.shell };
	const search = workspace.search ? { operations: workspace.search } : {};
	return {
		...base,
		read: { ...base.read, workspace },
		write: { ...base.write, workspace },
		edit: { ...base.edit, workspace },
		ls: { ...base.ls, workspace },
		grep: { ...base.grep, workspace, ...search },
		find: { ...base.find, workspace, ...search },
		bash: { ...base.bash, ...shell },
		powershell: { ...base.powershell, ...shell },
	};
}
