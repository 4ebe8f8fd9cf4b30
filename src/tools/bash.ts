import type { Static } from "typebox";
import type { AgentTool } from "../engine/index.js";
import { toolEntry, toolSeams } from "./registry/tool-entry.js";
import { resolveBashShell } from "./shell/resolve-shell.js";
import { shellCommandSchema } from "./shell/schema-fields.js";
import { createShellTool } from "./shell/shell-tool.js";
import type { ShellOperations, ShellToolDetails, ShellToolOptions } from "./shell/types.js";
import { defineTool } from "./tool-definition.js";

const DESCRIPTION = `Runs a command in bash in the working directory and returns its combined stdout and stderr.
stdin is empty and the environment is non-interactive: pass flags instead of answering prompts (e.g. \`git commit -m\`, \`npm init -y\`).
Output beyond 2000 lines or 50 KB keeps the last part; the full output is saved to a file whose path the result gives.
Commands time out after \`timeout\` seconds (default 120); the whole process tree is then killed.
For a server, a watcher or anything that does not end, pass \`run_in_background: true\`: the call returns a job id at once; read its output (and write to its stdin) with bash_output, stop it with bash_kill.
\`tty: true\` runs the command under a pseudo-terminal (REPLs, prompts); its output is cleaned of escape sequences.
A non-zero exit code makes the result an error that still carries the output.`;

/** Arguments of the bash tool. */
export const bashSchema = shellCommandSchema("bash");

/** Arguments of the bash tool, as the model sends them. */
export type BashToolInput = Static<typeof bashSchema>;
/** The runnable bash tool. */
export type BashTool = AgentTool<typeof bashSchema, BashToolDetails>;
/** Structured details of a bash result: exit code, signal, duration, timeout, truncation, full-output path. */
export type BashToolDetails = ShellToolDetails;
/** Options of the bash tool; `shellPath` overrides the automatic choice (`/bin/bash`, `bash` on PATH, `sh`). */
export type BashToolOptions = ShellToolOptions;
/** Process execution used by the bash tool (local by default). */
export type BashOperations = ShellOperations;

/** The bash tool's definition, as the model sees it. */
export const createBashToolDefinition = defineTool(
	{ name: "bash", title: "Run a bash command", effect: "runs" },
	bashSchema,
	DESCRIPTION,
);

/** The bash tool: runs commands without hanging, leaking processes or flooding memory. */
export function createBashTool(cwd: string, options: BashToolOptions = {}): BashTool {
	const definition = createBashToolDefinition(cwd, options);
	return createShellTool({ definition, cwd, options, dialect: "bash", resolveShell: resolveBashShell });
}

/** The registry's entry of bash (see `ToolEntry`). */
export const bashToolEntry = toolEntry({
	name: "bash",
	definition: createBashToolDefinition,
	tool: createBashTool,
	seam: toolSeams.shell,
	groups: ["coding", "jobs", "preparesAhead"],
});
