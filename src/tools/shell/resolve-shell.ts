import { basename } from "node:path";
import { ToolError } from "../../engine/index.js";
import type { ShellOperations, ShellToolOptions } from "./types.js";

/** A resolved shell and the arguments that make it run one command. */
export interface ShellInvocation {
	/** The program to start. */
	file: string;
	/** Its arguments, the command included unless it comes on stdin. */
	args: string[];
	/** The command, when it is too long for an argument and goes to the shell's stdin instead. */
	stdin?: string;
}

/**
 * Longest command passed as an argument, in UTF-8 bytes. Linux refuses a single argument over
 * 128 KB (`E2BIG`), which a model's heredoc easily exceeds; longer commands go through stdin.
 */
const longestInlineCommandBytes = 100 * 1024;

/**
 * Reads the whole script from stdin, then runs it with stdin at end-of-input, so the commands
 * in it see the same empty stdin as a short command does.
 */
const scriptFromStdin = 'eval "$(cat)" < /dev/null';

/** What a shell resolver gets. */
export interface ShellResolverInput {
	/** The command to run (command prefix already applied). */
	command: string;
	/** The tool's options (`shellPath`). */
	options: ShellToolOptions;
	/** Where executables are looked up. */
	operations: ShellOperations;
	/** The environment the shell will get (its `PATH` is searched). */
	env: Record<string, string>;
	/** The platform to resolve for. Default: `process.platform`. */
	platform?: NodeJS.Platform;
}

/** Finds the shell of a tool and builds its argument list. */
export type ShellResolver = (input: ShellResolverInput) => Promise<ShellInvocation>;

async function configuredShell(input: ShellResolverInput): Promise<string | undefined> {
	const { shellPath } = input.options;
	if (shellPath === undefined) return undefined;
	const found = await input.operations.findExecutable(shellPath, input.env);
	if (!found) {
		throw new ToolError(
			`The configured shell "${shellPath}" was not found or is not executable. Fix the shellPath option or remove it to use the default shell.`,
		);
	}
	return found;
}

async function firstFound(input: ShellResolverInput, candidates: string[]): Promise<string | undefined> {
	for (const candidate of candidates) {
		const found = await input.operations.findExecutable(candidate, input.env);
		if (found) return found;
	}
	return undefined;
}

/** bash: the configured path, then `/bin/bash`, then `bash` on PATH, then `sh`. */
export const resolveBashShell: ShellResolver = async (input) => {
	const file = (await configuredShell(input)) ?? (await firstFound(input, ["/bin/bash", "bash", "/bin/sh", "sh"]));
	if (!file) {
		throw new ToolError(
			"No shell was found: neither bash nor sh is installed or on PATH. Install bash to run commands.",
		);
	}
	// Node's stdio pipes are sockets, and bash takes a socket on stdin with SHLVL unset (as under an
	// MCP client's minimal environment) for an ssh session and sources ~/.bashrc — which may run
	// slow or blocking setup (version managers, prompts). Commands must not depend on it.
	const noStartupFiles = basename(file) === "bash" ? ["--norc", "--noprofile"] : [];
	if (Buffer.byteLength(input.command, "utf8") > longestInlineCommandBytes) {
		return { file, args: [...noStartupFiles, "-c", scriptFromStdin], stdin: input.command };
	}
	return { file, args: [...noStartupFiles, "-c", input.command] };
};

/**
 * Makes PowerShell write UTF-8 whatever the console code page is (Windows PowerShell defaults to
 * the OEM code page), without a byte-order mark.
 */
const powerShellUtf8Preamble =
	"[Console]::OutputEncoding = [System.Text.UTF8Encoding]::new($false); $OutputEncoding = [System.Text.UTF8Encoding]::new($false)\n";

/** The `-EncodedCommand` form of a script: UTF-16LE bytes in base64, immune to quoting. */
export function encodePowerShellCommand(script: string): string {
	return Buffer.from(script, "utf16le").toString("base64");
}

/** powershell: the configured path, then `pwsh`, then (on Windows) `powershell.exe`. */
export const resolvePowerShell: ShellResolver = async (input) => {
	const platform = input.platform ?? process.platform;
	const candidates = platform === "win32" ? ["pwsh", "powershell.exe"] : ["pwsh"];
	const file = (await configuredShell(input)) ?? (await firstFound(input, candidates));
	if (!file) {
		const searched =
			platform === "win32" ? "neither pwsh nor powershell.exe was found on PATH" : "pwsh was not found on PATH";
		throw new ToolError(
			`PowerShell is not installed: ${searched}. Install PowerShell 7 (pwsh) or use the bash tool instead.`,
		);
	}
	return {
		file,
		args: [
			"-NoLogo",
			"-NoProfile",
			"-NonInteractive",
			"-EncodedCommand",
			encodePowerShellCommand(powerShellUtf8Preamble + input.command),
		],
	};
};
