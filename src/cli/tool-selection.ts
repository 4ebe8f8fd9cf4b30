import { booleanOption, type OptionValues, stringOption, UsageError } from "./args.js";

/** The tool names the registry knows, plus which of them only look (never change anything). */
export interface ToolCatalog {
	/** Every built-in tool name. */
	allNames: readonly string[];
	/** The read-only subset (read, grep, find, ls). */
	readOnlyNames: readonly string[];
}

/**
 * Which tools `--tools` / `--read-only` select. Default: every tool except the one shell that
 * does not belong on this platform (powershell off Windows), so the model is not offered a
 * tool that can only fail.
 */
export function selectToolNames(values: OptionValues, catalog: ToolCatalog, platform = process.platform): string[] {
	const list = stringOption(values, "tools");
	const readOnly = booleanOption(values, "read-only");
	if (list !== undefined && readOnly) {
		throw new UsageError("Use either --tools or --read-only, not both (--read-only means --tools read,grep,find,ls).");
	}
	if (readOnly) return [...catalog.readOnlyNames];
	if (list === undefined) {
		const skipped = platform === "win32" ? undefined : "powershell";
		return catalog.allNames.filter((name) => name !== skipped);
	}
	const names = list
		.split(",")
		.map((name) => name.trim())
		.filter((name) => name !== "");
	if (names.length === 0) throw new UsageError(`--tools needs at least one tool name: ${catalog.allNames.join(",")}.`);
	const unknown = names.filter((name) => !catalog.allNames.includes(name));
	if (unknown.length > 0) {
		const plural = unknown.length > 1 ? "s" : "";
		throw new UsageError(
			`Unknown tool${plural} ${unknown.join(", ")} in --tools. Known tools: ${catalog.allNames.join(", ")}.`,
		);
	}
	return [...new Set(names)];
}
