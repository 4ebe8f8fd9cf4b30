import { findCommand, parseCommandArgs, UsageError } from "./args.js";
import { commands, interactiveCommand } from "./commands.js";
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

/**
 * The `toolbelt` command line. Parses `argv` (without `node` and the script path), runs the
 * command against `io` and resolves to the exit code: 0 ok, 1 failed, 2 bad usage,
 * 130 cancelled. Never throws and never calls `process.exit`, so tests can drive it in process.
 */
export async function main(argv: string[], io: CliIO): Promise<number> {
	let label = "toolbelt";
	try {
		if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v")) {
			io.stdout.write(`${packageVersion()}\n`);
			return ExitCode.ok;
		}
		const names = [...commands.map((command) => command.name), mcpCommandName];
		const { command, rest } = findCommand(argv, { commands: names, valueFlags: valueFlags() });
		if (command) label = `toolbelt ${command}`;
		if (command === mcpCommandName) return await runMcp(rest, io);
		const spec = command ? commands.find((candidate) => candidate.name === command) : interactiveCommand;
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
			const hint = error.showHelpHint ? `\nRun '${label} --help' for usage.` : "";
			io.stderr.write(`toolbelt: ${error.message}${hint}\n`);
			return ExitCode.usage;
		}
		// A bug or an environment failure: the message, and the stack when asked for.
		const debug = io.env.TOOLBELT_DEBUG !== undefined && io.env.TOOLBELT_DEBUG !== "";
		const text = error instanceof Error ? ((debug ? error.stack : undefined) ?? error.message) : String(error);
		io.stderr.write(`toolbelt: ${text}\n`);
		return ExitCode.error;
	}
}

function listedCommands(): { name: string; summary: string }[] {
	return [
		...commands,
		{
			name: mcpCommandName,
			summary: "Serve the tools over MCP (stdio or loopback HTTP), or inspect an mcpServers file.",
		},
	];
}

// ─── MCP ────────────────────────────────────────────────────────────────────────────────────
// `toolbelt mcp …` is owned by the MCP part (src/mcp, src/cli/commands/mcp.ts). It receives the
// raw arguments after `mcp` and the same CliIO, and parses and documents its own flags.
async function runMcp(argv: string[], io: CliIO): Promise<number> {
	const { runMcpCommand } = await import("./commands/mcp.js");
	return runMcpCommand(argv, io);
}
