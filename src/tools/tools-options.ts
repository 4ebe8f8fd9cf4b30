import type { BashToolOptions } from "./bash.js";
import type { JobToolOptions } from "./bash-output.js";
import type { CodeToolOptions } from "./code-mode/code-tool.js";
import type { EditToolOptions } from "./edit.js";
import type { FindToolOptions } from "./find.js";
import type { GrepToolOptions } from "./grep.js";
import type { JobRegistry } from "./jobs/job-registry.js";
import type { LsToolOptions } from "./ls.js";
import type { ApplyPatchToolOptions } from "./patch/types.js";
import type { PowerShellToolOptions } from "./powershell.js";
import type { ReadToolOptions } from "./read.js";
import type { WriteToolOptions } from "./write.js";

/** Options for the built-in tools: one optional entry per tool. */
export interface ToolsOptions {
	/** Options of the read tool. */
	read?: ReadToolOptions;
	/** Options of the write tool. */
	write?: WriteToolOptions;
	/** Options of the edit tool. */
	edit?: EditToolOptions;
	/** Options of the apply_patch tool. */
	apply_patch?: ApplyPatchToolOptions;
	/** Options of the bash tool. */
	bash?: BashToolOptions;
	/** Options of the powershell tool. */
	powershell?: PowerShellToolOptions;
	/** Options of the grep tool. */
	grep?: GrepToolOptions;
	/** Options of the find tool. */
	find?: FindToolOptions;
	/** Options of the ls tool. */
	ls?: LsToolOptions;
	/** Options of the bash_output tool. */
	bash_output?: JobToolOptions;
	/** Options of the bash_kill tool. */
	bash_kill?: JobToolOptions;
	/** Options of the code tool (code mode): the bounds of each program. */
	code?: CodeToolOptions;
	/**
	 * The session's background jobs, shared by bash, powershell, bash_output and bash_kill (a
	 * tool's own `jobs` option wins). Default: one registry per options object, so every tool
	 * made from the same options shares it; end it with `dispose()` or `disposeShellProcesses()`.
	 */
	jobs?: JobRegistry;
}
