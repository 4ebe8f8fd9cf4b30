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
	/**
	 * How long after its creation a shell or search tool starts what its first call needs (a
	 * standby shell, ripgrep's launcher), in ms. Default: 0, at creation; each start forks this
	 * process (several ms in which it answers nothing). A host with work of its own before any call
	 * can come sets it: `runMcpServer` (`MCP_PREPARE_AFTER_MS`, past the handshake), the agent CLI
	 * (500 ms, past the model's first request). A call that begins sooner starts what it needs itself.
	 */
	prepareAfterMs?: number;
}
