import { plainCommandTexts } from "../../safety/shell-policy/plain-command/index.js";

/** How a command starts: its code cache entry, and whether WebAssembly is kept on the baseline compiler first. */
export interface StartProfile {
	/** The cache entry's command part: each holds exactly the functions its command runs. */
	cacheEntry: string;
	/**
	 * Set V8's baseline WebAssembly flags before the bundle is compiled (`keepWebAssemblyOnBaselineCompiler`):
	 * a command that parses with a tree-sitter grammar sets them at its first parse, and a code cache
	 * made before flags change is rejected by V8 at every later start.
	 */
	baselineWebAssembly: boolean;
}

const COMMANDS = ["tool", "tools", "mcp", "run", "undo", "checkpoints"];

/**
 * Tools that parse nothing with a grammar (no command to judge, no file to check): their one-shot
 * `toolbelt tool` starts without the flags, and so without loading `node:v8` (~10 ms of a start),
 * under a cache entry of their own (a cache is taken only under the flags it was made with).
 */
const TOOLS_WITHOUT_GRAMMARS = ["read", "grep", "find", "ls"];

/**
 * A bash call whose command is one program and its plain words is judged without the bash grammar
 * (`plainWords`), so its one-shot start needs no flags either: ~10 ms of `toolbelt tool bash
 * '{"command":"git status"}'`. Its entry is its own: one made with the flags is not taken without.
 */
const PLAIN_BASH_ENTRY = "tool-bash-plain";

/** The words that ask for a command's help instead of its work. */
const HELP_WORDS = ["--help", "-h"];

/**
 * The start profile of the command line `args`: `help` when a help word is among them (a command's
 * help runs none of its work: a `toolbelt mcp --help` that came first would leave the `mcp` entry
 * without the code a session runs, and every later session would compile it, ~7 ms of its first
 * call); else the first of a few known command words, else "other"; for `tool`, the first word
 * after it that names a tool without grammars, or `bash` with a plain command. A guess that is
 * wrong (`--cwd mcp tools` picks mcp) costs only speed: every bundle runs every command, the flags
 * are set at a grammar's first use whatever the profile said, and a cache is then not saved.
 */
export function startProfile(args: string[]): StartProfile {
	if (args.some((word) => HELP_WORDS.includes(word))) return { cacheEntry: "help", baselineWebAssembly: false };
	const at = args.findIndex((word) => COMMANDS.includes(word));
	const command = args[at] ?? "other";
	if (command !== "tool") return { cacheEntry: command, baselineWebAssembly: true };
	const after = args.slice(at + 1);
	const tool = after.find((word) => TOOLS_WITHOUT_GRAMMARS.includes(word));
	if (tool) return { cacheEntry: `tool-${tool}`, baselineWebAssembly: false };
	if (after.includes("bash") && isPlainBashCall(after)) {
		return { cacheEntry: PLAIN_BASH_ENTRY, baselineWebAssembly: false };
	}
	return { cacheEntry: command, baselineWebAssembly: true };
}

/**
 * Whether the JSON arguments among `words` (the first word that opens an object) name a plain
 * command. Arguments piped on stdin are not known at the start: those take the flags.
 */
function isPlainBashCall(words: string[]): boolean {
	const json = words.find((word) => word.trimStart().startsWith("{"));
	if (json === undefined) return false;
	try {
		const command = (JSON.parse(json) as { command?: unknown }).command;
		return typeof command === "string" && plainCommandTexts(command) !== undefined;
	} catch {
		return false;
	}
}
