import type { ToolName } from "../tools/index.js";
import { booleanOption, type OptionValues, stringOption, UsageError } from "./args.js";
import type { ToolRegistry } from "./tool-catalog.js";

/** What selection needs of the tools' registry: the names, and which of them only look. */
export type ToolCatalog = Pick<ToolRegistry, "allToolNames" | "readOnlyToolNames" | "isToolName">;

/**
 * Which tools `--tools` / `--read-only` select. Default: every tool except the one shell that
 * does not belong on this platform (powershell off Windows), so the model is not offered a
 * tool that can only fail.
 */
export function selectToolNames(values: OptionValues, catalog: ToolCatalog, platform = process.platform): ToolName[] {
	const list = stringOption(values, "tools");
	const readOnly = booleanOption(values, "read-only");
	if (list !== undefined && readOnly) {
		throw new UsageError("Use either --tools or --read-only, not both (--read-only means --tools read,grep,find,ls).");
	}
	if (readOnly) return [...catalog.readOnlyToolNames];
	if (list === undefined) {
		const skipped = platform === "win32" ? undefined : "powershell";
		return catalog.allToolNames.filter((name) => name !== skipped);
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
