import type { ToolName } from "../../tools/index.js";
import { booleanOption, type OptionValues, stringOption, UsageError } from "../args.js";
import type { ToolRegistry } from "./tool-catalog.js";

/** What selection needs of the tools' registry: the names, and which of them only look. */
export type ToolCatalog = Pick<ToolRegistry, "allToolNames" | "readOnlyToolNames" | "optInToolNames" | "isToolName">;

/**
 * Whether a model id names a model trained on the `apply_patch` format: OpenAI's GPT-5 and codex
 * families (also behind a router prefix such as `openai/`). Other models get edit alone.
 */
export function knowsApplyPatch(modelId: string): boolean {
	return /(^|[/:])gpt-5(?![0-9])|codex/i.test(modelId);
}

/**
 * Which tools `--tools` / `--read-only` select. Default: every tool except the one shell that
 * does not belong on this platform (powershell off Windows), so the model is not offered a
 * tool that can only fail, and except apply_patch when `modelId` is given and names a model not
 * trained on its format (listings, with no model, show it). The opt-in tools (code mode) join the
 * default only for the agent (when `modelId` is given): `toolbelt mcp` and listings leave them out
 * unless `--tools` names them.
 */
export function selectToolNames(
	values: OptionValues,
	catalog: ToolCatalog,
	platform = process.platform,
	modelId?: string,
): ToolName[] {
	const list = stringOption(values, "tools");
	const readOnly = booleanOption(values, "read-only");
	if (list !== undefined && readOnly) {
		throw new UsageError("Use either --tools or --read-only, not both (--read-only means --tools read,grep,find,ls).");
	}
	if (readOnly) return [...catalog.readOnlyToolNames];
	if (list === undefined) {
		const skipped = platform === "win32" ? undefined : "powershell";
		const patches = modelId === undefined || knowsApplyPatch(modelId);
		const optIn = modelId === undefined ? catalog.optInToolNames : [];
		return catalog.allToolNames.filter(
			(name) => name !== skipped && (patches || name !== "apply_patch") && !optIn.includes(name),
		);
	}
	const names = list
		.split(",")
		.map((name) => name.trim())
		.filter((name) => name !== "");
	if (names.length === 0)
		throw new UsageError(`--tools needs at least one tool name: ${catalog.allToolNames.join(",")}.`);
	const unknown = names.filter((name) => !catalog.isToolName(name));
	if (unknown.length > 0) {
		const plural = unknown.length > 1 ? "s" : "";
		throw new UsageError(
			`Unknown tool${plural} ${unknown.join(", ")} in --tools. Known tools: ${catalog.allToolNames.join(", ")}.`,
		);
	}
	return [...new Set(names.filter(catalog.isToolName))];
}
