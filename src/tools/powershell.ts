import type { Static } from "typebox";
import type { AgentTool } from "../engine/index.js";
import { toolEntry, toolSeams } from "./registry/tool-entry.js";
import { resolvePowerShell } from "./shell/resolve-shell.js";
import { shellCommandSchema } from "./shell/schema-fields.js";
import { createShellTool } from "./shell/shell-tool.js";
import type { ShellOperations, ShellToolDetails, ShellToolOptions } from "./shell/types.js";
import { defineTool } from "./tool-definition.js";

const DESCRIPTION = `Runs a PowerShell command (pwsh, or Windows PowerShell on Windows) in the working directory and returns its combined output.
The command is passed verbatim (no quoting needed for $env:X, @{...} or quotes); output is UTF-8; stdin is empty and prompts fail.
Output beyond 2000 lines or 50 KB keeps the last part; the full output is saved to a file whose path the result gives.
Commands time out after \`timeout\` seconds (default 120); the whole process tree is then killed.
For a server, a watcher or anything that does not end, pass \`run_in_background: true\` and use bash_output / bash_kill with the job id.
A non-zero exit code makes the result an error that still carries the output.`;

/** Arguments of the powershell tool. */
export const powerShellSchema = shellCommandSchema("PowerShell");

/** Arguments of the powershell tool, as the model sends them. */
export type PowerShellToolInput = Static<typeof powerShellSchema>;
/** The runnable powershell tool. */
export type PowerShellTool = AgentTool<typeof powerShellSchema, PowerShellToolDetails>;
/** Structured details of a powershell result (same shape as bash's). */
export type PowerShellToolDetails = ShellToolDetails;
/** Options of the powershell tool; `shellPath` overrides the automatic choice (`pwsh`, then `powershell.exe` on Windows). */
export type PowerShellToolOptions = ShellToolOptions;
/** Process execution used by the powershell tool (local by default). */
export type PowerShellOperations = ShellOperations;

/** The powershell tool's definition, as the model sees it. */
export const createPowerShellToolDefinition = defineTool(
	{ name: "powershell", title: "Run a PowerShell command", effect: "runs" },
	powerShellSchema,
	DESCRIPTION,
);

/** The powershell tool: the bash tool's runner with PowerShell's shell and argument passing. */
export function createPowerShellTool(cwd: string, options: PowerShellToolOptions = {}): PowerShellTool {
	const definition = createPowerShellToolDefinition(cwd, options);
	return createShellTool({ definition, cwd, options, dialect: "powershell", resolveShell: resolvePowerShell });
}

/** The registry's entry of powershell (see `ToolEntry`). */
export const powerShellToolEntry = toolEntry({
	name: "powershell",
	definition: createPowerShellToolDefinition,
	tool: createPowerShellTool,
	seam: toolSeams.shell,
	groups: ["jobs", "preparesAhead"],
});
