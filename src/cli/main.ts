import { findCommand, parseCommandArgs, UsageError } from "./args.js";
import { type CommandSpec, commands, interactiveCommand } from "./commands.js";
import { commandHelp, mainHelp } from "./help.js";
import { type CliIO, ExitCode } from "./io.js";
import { packageVersion } from "./version.js";

/**
 * `mcp` parses its own arguments (it is a server or a client launcher, with its own flags), so
 * it is dispatched with the raw argument list. Loaded lazily like every command.
 */
const mcpCommandName = "mcp";

function valueFlags(): Set<string> {
	const flags = new Set<string>();
	for (const spec of [interactiveCommand, ...commands]) {
		for (const [name, option] of Object.entries(spec.options)) {
			if (option.type !== "string") continue;
			flags.add(`--${name}`);
			if (option.short) flags.add(`-${option.short}`);
		}
	}
	return flags;
}

function commandLabel(spec: CommandSpec | undefined): string {
	return spec?.name ? `toolbelt ${spec.name}` : "toolbelt";
}

/**
 * The `toolbelt` command line. Parses `argv` (without `node` and the script path), runs the
 * command against `io` and resolves to the exit code: 0 ok, 1 failed, 2 bad usage,
 * 130 cancelled. Never throws and never calls `process.exit`, so tests can drive it in process.
 */
export async function main(argv: string[], io: CliIO): Promise<number> {
	let spec: CommandSpec | undefined;
	try {
		if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v")) {
			io.stdout.write(`${packageVersion()}\n`);
			return ExitCode.ok;
		}
		const names = [...commands.map((command) => command.name), mcpCommandName];
		const { command, rest } = findCommand(argv, { commands: names, valueFlags: valueFlags() });
		if (command === mcpCommandName) return await runMcp(rest, io);
		spec = command ? commands.find((candidate) => candidate.name === command) : interactiveCommand;
		if (!spec) throw new UsageError(`Unknown command '${command}'.`);
		if (!command && (rest.includes("--help") || rest.includes("-h"))) {
			io.stdout.write(
				mainHelp({ commands: listedCommands(), interactive: interactiveCommand, version: packageVersion() }),
			);
			return ExitCode.ok;
		}
		const args = parseCommandArgs(rest, spec.options);
		if (args.values.help === true) {
			io.stdout.write(commandHelp(spec));
			return ExitCode.ok;
		}
		if (!command && args.positionals.length > 0) {
			const known = names.join(", ");
			throw new UsageError(
				`Unknown command '${args.positionals[0]}'. Commands: ${known}. To run a prompt: toolbelt run "<prompt>".`,
			);
		}
		const handler = await spec.load();
		return await handler(args, io);
	} catch (error) {
		if (error instanceof UsageError) {
			const hint = error.showHelpHint ? `\nRun '${commandLabel(spec)} --help' for usage.` : "";
			io.stderr.write(`toolbelt: ${error.message}${hint}\n`);
			return ExitCode.usage;
		}
		io.stderr.write(`toolbelt: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
		return ExitCode.error;
	}
}

function listedCommands(): CommandSpec[] {
	return [
		...commands,
		{
			name: mcpCommandName,
			summary: "Serve the tools over MCP (stdio), or inspect MCP servers.",
			usage: [],
			description: "",
			options: {},
			load: async () => async () => ExitCode.error,
		},
	];
}

// ─── MCP ────────────────────────────────────────────────────────────────────────────────────
// `toolbelt mcp …` is owned by the MCP part (src/mcp, src/cli/commands/mcp.ts). It receives the
// raw arguments after `mcp` and the same CliIO, and parses and documents its own flags.
async function runMcp(argv: string[], io: CliIO): Promise<number> {
	void argv;
	io.stderr.write("toolbelt: the mcp command is not available in this build yet.\n");
	return ExitCode.error;
}
