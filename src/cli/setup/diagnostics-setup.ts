// The language servers of a CLI session (the agent, `toolbelt mcp`, `toolbelt tool`): on or off by
// entry point and settings, and handed to every tool that changes files.
import type { DiagnosticsSession } from "../../diagnostics/index.js";
import { diagnosticsServersOf } from "../../safety/index.js";
import type { ToolsOptions } from "../../tools/index.js";
import type { CliSafety } from "./safety-setup.js";

/** Which entry point asks: diagnostics are on by default for `agent` and `mcp`, off for `tool`. */
export type DiagnosticsEntryPoint = "tool" | "agent" | "mcp";

const defaults: Record<DiagnosticsEntryPoint, boolean> = { tool: false, agent: true, mcp: true };

/**
 * The session's language servers, or undefined when diagnostics are off (settings
 * `diagnostics.enabled`) or the workspace is remote: the servers would have to run where the files
 * are, which needs them installed there; toolbelt does not start programs on a remote host for this.
 */
export async function openCliDiagnostics(
	safety: CliSafety,
	entry: DiagnosticsEntryPoint,
	options: { trustProjectFlag?: boolean } = {},
): Promise<DiagnosticsSession | undefined> {
	if (safety.workspace) return undefined;
	const settings = safety.layer.settings.diagnostics;
	const enabled = settings?.enabled;
	const on = typeof enabled === "boolean" ? enabled : (enabled?.[entry] ?? defaults[entry]);
	if (!on) return undefined;
	const project = safety.layer.settings.project;
	// The workspace's own typescript runs the repository's code: only in a folder the person trusts.
	const trustWorkspace =
		options.trustProjectFlag === true || (project?.trusted === true && project.widening.length > 0);
	const { createDiagnosticsSession } = await import("../../diagnostics/index.js");
	return createDiagnosticsSession({ root: safety.cwd, servers: diagnosticsServersOf(settings), trustWorkspace });
}

/** `toolOptions` with `diagnostics` given to write, edit and apply_patch (unchanged without a session). */
export function withDiagnostics(toolOptions: ToolsOptions, diagnostics: DiagnosticsSession | undefined): ToolsOptions {
	if (!diagnostics) return toolOptions;
	return {
		...toolOptions,
		write: { ...toolOptions.write, diagnostics },
		edit: { ...toolOptions.edit, diagnostics },
		apply_patch: { ...toolOptions.apply_patch, diagnostics },
	};
}
