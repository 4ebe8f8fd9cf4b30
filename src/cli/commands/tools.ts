import { type ParsedArgs, stringOption, UsageError } from "../args.js";
import { loadToolCatalog } from "../catalog/tool-catalog.js";
import { formatToolDefinitions, isToolFormat, toolFormats } from "../catalog/tool-formats.js";
import { selectToolNames } from "../catalog/tool-selection.js";
import { type CliIO, ExitCode } from "../io.js";
import { resolveCwd } from "../paths.js";
import { fitWidth } from "../render/tool-line.js";

/** `toolbelt tools [--format json-schema|openai|anthropic]`: prints the tool definitions. */
export async function runToolsCommand(args: ParsedArgs, io: CliIO): Promise<number> {
	if (args.positionals.length > 0) throw new UsageError(`Unexpected argument '${args.positionals[0]}'.`);
	const format = stringOption(args.values, "format");
	if (format !== undefined && !isToolFormat(format)) {
		throw new UsageError(`Unknown format '${format}'. Use one of: ${toolFormats.join(", ")}.`);
	}
	const cwd = await resolveCwd(io, args.values);
	const catalog = await loadToolCatalog();
	const definitions = selectToolNames(args.values, catalog).map((name) => catalog.createToolDefinition(name, cwd));
	if (format !== undefined) {
		io.stdout.write(`${JSON.stringify(formatToolDefinitions(definitions, format), null, 2)}\n`);
		return ExitCode.ok;
	}
	const width = Math.max(...definitions.map((definition) => definition.name.length));
	for (const definition of definitions) {
		const mode = definition.annotations?.readOnlyHint ? "read-only" : "writes";
		const line = `${definition.name.padEnd(width)}  ${mode.padEnd(9)}  ${firstSentence(definition.description)}`;
		io.stdout.write(`${fitWidth(line, Math.max(60, (io.columns ?? 120) - 1))}\n`);
	}
	return ExitCode.ok;
}

function firstSentence(text: string): string {
	const line = text.trim().split("\n")[0] ?? "";
	const end = line.search(/\.(\s|$)/);
	return end === -1 ? line : line.slice(0, end + 1);
}
