import type { OptionSpecs } from "./args.js";
import type { CommandSpec } from "./commands.js";

function formatOptions(options: OptionSpecs): string[] {
	const rows = Object.entries(options).map(([name, spec]) => {
		const short = spec.short ? `-${spec.short}, ` : "    ";
		const value = spec.type === "string" ? ` ${spec.valueName ?? "<value>"}` : "";
		return { flag: `${short}--${name}${value}`, description: spec.description };
	});
	const width = Math.max(...rows.map((row) => row.flag.length));
	return rows.map((row) => `  ${row.flag.padEnd(width)}  ${row.description}`);
}

/** The `--help` text of one command. */
export function commandHelp(spec: CommandSpec): string {
	const lines = [`Usage: ${spec.usage[0]}`, ...spec.usage.slice(1).map((usage) => `       ${usage}`), ""];
	lines.push(spec.description, "", "Options:", ...formatOptions(spec.options));
	if (spec.examples?.length) lines.push("", "Examples:", ...spec.examples.map((example) => `  ${example}`));
	return `${lines.join("\n")}\n`;
}

/** The top-level `toolbelt --help` text: commands, then the interactive session's options. */
export function mainHelp(options: {
	commands: { name: string; summary: string }[];
	interactive: CommandSpec;
	version: string;
}): string {
	const width = Math.max(...options.commands.map((command) => command.name.length));
	const lines = [
		`toolbelt ${options.version} — a coding agent and the tools it uses, for terminals, scripts and MCP.`,
		"",
		"Usage: toolbelt [options]              interactive session (in a terminal)",
		"       toolbelt <command> [options]",
		"",
		"Commands:",
		...options.commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`),
		"",
		"Run 'toolbelt <command> --help' for a command's options.",
		"",
		"Options (interactive session and run):",
		...formatOptions({
			...options.interactive.options,
			version: { type: "boolean", description: "Print the version." },
		}),
		"",
		"Environment:",
		"  OPENAI_API_KEY     key for --provider openai (optional for a local server)",
		"  OPENAI_BASE_URL    base URL of an OpenAI-compatible server (Ollama, vLLM, LM Studio, OpenRouter)",
		"  ANTHROPIC_API_KEY  key for --provider anthropic",
		"",
		options.interactive.description.slice(options.interactive.description.indexOf("Provider setup")),
	];
	return `${lines.join("\n")}\n`;
}
