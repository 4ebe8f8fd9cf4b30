// The language servers of a CLI session (the agent, `toolbelt mcp`, `toolbelt tool`): on or off by
// entry point, settings and the environment, and handed to every tool that changes files.
import type { DiagnosticsSession } from "../../diagnostics/index.js";
import { diagnosticsServersOf } from "../../safety/index.js";
import { buildShellEnvironment, type ToolsOptions } from "../../tools/index.js";
import type { CliSafety } from "./safety-setup.js";

/** Which entry point asks: diagnostics are on by default for `agent` and `mcp`, off for `tool`. */
export type DiagnosticsEntryPoint = "tool" | "agent" | "mcp";

/** The environment variable that turns diagnostics on or off for one process, over the settings. */
export const DIAGNOSTICS_ENV = "TOOLBELT_DIAGNOSTICS";

const defaults: Record<DiagnosticsEntryPoint, boolean> = { tool: false, agent: true, mcp: true };

/**
 * `TOOLBELT_DIAGNOSTICS`: `0`/`off`/`false` or `1`/`on`/`true`; undefined when unset or empty. The
 * person starting the process sets it (CI, a script that edits many files), so it outranks the
 * settings files, as a command-line flag would.
 */
export function diagnosticsFromEnvironment(env: Readonly<Record<string, string | undefined>>): boolean | undefined {
	const value = env[DIAGNOSTICS_ENV]?.trim().toLowerCase();
	if (value === undefined || value === "") return undefined;
	if (["0", "off", "false", "no"].includes(value)) return false;
	if (["1", "on", "true", "yes"].includes(value)) return true;
	throw new Error(`${DIAGNOSTICS_ENV}=${env[DIAGNOSTICS_ENV]} is not understood: use 0 (off) or 1 (on), or unset it.`);
}

/**
 * The session's language servers, or undefined when diagnostics are off (`TOOLBELT_DIAGNOSTICS`,
 * else settings `diagnostics.enabled`, else the entry point's default) or the workspace is remote:
 * the servers would have to run where the files are, which needs them installed there; toolbelt
 * does not start programs on a remote host for this.
 */
export async function openCliDiagnostics(
	safety: CliSafety,
	entry: DiagnosticsEntryPoint,
	options: { trustProjectFlag?: boolean; env?: Readonly<Record<string, string | undefined>> } = {},
): Promise<DiagnosticsSession | undefined> {
	if (safety.workspace) return undefined;
	const settings = safety.layer.settings.diagnostics;
	const enabled = settings?.enabled;
	const fromSettings = typeof enabled === "boolean" ? enabled : (enabled?.[entry] ?? defaults[entry]);
	const on = diagnosticsFromEnvironment(options.env ?? {}) ?? fromSettings;
	if (!on) return undefined;
	const project = safety.layer.settings.project;
	// The workspace's own typescript runs the repository's code: only in a folder the person trusts,
	// and not beside the sandbox: a sandboxed command may rewrite node_modules/typescript, and the
	// server runs outside the sandbox (what a command writes must not run later outside it).
	const trustWorkspace =
		safety.layer.sandbox === undefined &&
		(options.trustProjectFlag === true || (project?.trusted === true && project.widening.length > 0));
	const { createDiagnosticsSession } = await import("../../diagnostics/index.js");
	return createDiagnosticsSession({
		root: safety.cwd,
		servers: diagnosticsServersOf(settings),
		trustWorkspace,
		// The commands' environment (no secret, no credential in a value): a server is a program of the
		// workspace's too (pyright starts python3), outside the sandbox.
		environment: buildShellEnvironment(),
	});
}

/**
 * `toolOptions` with `diagnostics` given to write, edit and apply_patch (unchanged without a
 * session), and to read when `readsPrepare`: a file read then starts its server ahead of the first
 * change. Only where a change can follow (a change tool is served, the mode allows writes).
 */
export function withDiagnostics(
	toolOptions: ToolsOptions,
	diagnostics: DiagnosticsSession | undefined,
	options: { readsPrepare: boolean },
): ToolsOptions {
	if (!diagnostics) return toolOptions;
	return {
		...toolOptions,
		...(options.readsPrepare ? { read: { ...toolOptions.read, diagnostics } } : {}),
		write: { ...toolOptions.write, diagnostics },
		edit: { ...toolOptions.edit, diagnostics },
		apply_patch: { ...toolOptions.apply_patch, diagnostics },
	};
}

/** The tools that report diagnostics after a change. */
const CHANGE_TOOL_NAMES: readonly string[] = ["write", "edit", "apply_patch"];

/**
 * Whether a read should start its file's language server ahead of a change (`withDiagnostics`):
 * only where one can follow, a change tool among `toolNames` and a mode that lets it write.
 */
export function readsPrepareDiagnostics(safety: Pick<CliSafety, "mode">, toolNames: readonly string[]): boolean {
	return safety.mode !== "read-only" && toolNames.some((name) => CHANGE_TOOL_NAMES.includes(name));
}
