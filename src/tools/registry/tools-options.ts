import type { JobRegistry } from "../jobs/job-registry.js";
import type { PerToolOptions } from "./tool-table.js";

/**
 * Options for the built-in tools: one optional entry per tool, keyed by its name and typed by
 * its module's options (derived from the registry's table, so a new tool has its key without
 * an edit here), and the jobs they share.
 */
export interface ToolsOptions extends PerToolOptions {
	/**
	 * The session's background jobs, shared by bash, powershell, bash_output and bash_kill (a
	 * tool's own `jobs` option wins). Default: one registry per options object, so every tool
	 * made from the same options shares it; end it with `dispose()` or `disposeShellProcesses()`.
	 */
	jobs?: JobRegistry;
}
