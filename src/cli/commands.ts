import type { OptionSpecs, ParsedArgs } from "./args.js";
import type { CliIO } from "./io.js";
import { safetyHelp, safetyOptions, toolCommandSafetyOptions, workspaceOptions } from "./setup/safety-options.js";

/** Runs a command with its parsed arguments; resolves to the process exit code. */
export type CommandHandler = (args: ParsedArgs, io: CliIO) => Promise<number>;

/** One `toolbelt` subcommand: what help shows, and how to load its code lazily. */
export interface CommandSpec {
	/** The word after `toolbelt`; empty for the interactive session (no command). */
	name: string;
	/** One line for the command list. */
	summary: string;
	/** Usage lines, without the leading `Usage: `. */
	usage: string[];
	/** A paragraph or two shown by `--help`. */
	description: string;
	/** The options this command accepts (besides `--help`). */
	options: OptionSpecs;
	/** Example invocations shown by `--help`. */
	examples?: string[];
	/**
	 * Loads the handler. A dynamic import, so that `toolbelt --version` and `--help` never load
	 * the SDKs, the agent or the tools.
	 */
	load(): Promise<CommandHandler>;
}

const help: OptionSpecs = {
	help: { type: "boolean", short: "h", description: "Show this help." },
};

const cwdOption: OptionSpecs = {
	cwd: {
		type: "string",
		valueName: "<dir>",
		description: "Working directory for the tools. Default: the current one.",
	},
};

const toolSelection: OptionSpecs = {
	tools: {
		type: "string",
		valueName: "<list>",
		description: "Comma-separated tools to enable, e.g. read,grep,find,ls. Default: all but powershell.",
	},
	"read-only": { type: "boolean", description: "Only the read-only tools: read, grep, find, ls." },
};

/** Options shared by the commands that talk to a model. */
export const agentOptions: OptionSpecs = {
	provider: {
		type: "string",
		valueName: "<name>",
		description:
			"openai (any OpenAI-compatible server) or anthropic; ollama, lmstudio, llamacpp, vllm, openrouter preset the URL.",
	},
	model: { type: "string", valueName: "<id>", description: "Model id, e.g. gpt-4.1, claude-sonnet-4-5, qwen3:8b." },
	"base-url": {
		type: "string",
		valueName: "<url>",
		description: "API base URL, e.g. http://localhost:11434/v1 for Ollama. Env: OPENAI_BASE_URL.",
	},
	...cwdOption,
	...toolSelection,
	sequential: { type: "boolean", description: "Run the tool calls of a reply one at a time, not in parallel." },
	"system-prompt": { type: "string", valueName: "<text>", description: "Replace the default system prompt." },
	"max-turns": { type: "string", valueName: "<n>", description: "Stop after this many model turns. Default: 50." },
	// MCP client: src/mcp/client.ts connects to the servers (see agent-setup.ts).
	"mcp-config": {
		type: "string",
		valueName: "<file>",
		description: "JSON file of MCP servers whose tools the agent may also use ({ mcpServers: { … } }).",
	},
	...safetyOptions,
	continue: { type: "boolean", description: "Continue the newest recorded session of this folder, with its history." },
	resume: {
		type: "string",
		valueName: "<id>",
		description: "Continue the recorded session with this id (or a unique start of it); see toolbelt sessions.",
	},
	"no-record": { type: "boolean", description: "Do not record this session (see toolbelt sessions)." },
	"batch-budget": {
		type: "string",
		valueName: "<KB>",
		description:
			"Most KB of tool output one reply's batch of calls returns, shared fairly among the calls. Default: none.",
	},
};

const providerHelp = `Provider setup (no key is needed for a local server):
  export OPENAI_API_KEY=…         then: toolbelt --model gpt-4.1
  export ANTHROPIC_API_KEY=…      then: toolbelt --provider anthropic
  Ollama / vLLM / LM Studio:      toolbelt --provider openai --base-url http://localhost:11434/v1 --model qwen3:8b
  Ollama at its usual port:       toolbelt --provider ollama --model qwen3:8b`;

/** The interactive session: `toolbelt` with no command. */
export const interactiveCommand: CommandSpec = {
	name: "",
	summary: "Start an interactive session (in a terminal).",
	usage: ["toolbelt [options]"],
	description: `Chat with a coding agent that uses the tools in the working directory. Each tool call shows
as one line with a live spinner; Ctrl-C cancels the running turn, Ctrl-D exits.

When the folder's .toolbelt/settings.json would widen what runs (hooks, allow rules, a laxer
mode, extra directories, sandbox relaxations), you are first asked once whether to trust it:
t trusts it until the file changes, s for this session, n ignores those settings.

Before a call that needs approval (in default mode: file changes and commands), you are asked:
y runs it, n refuses it, a runs it and adds an allow rule for exactly that call to
.toolbelt/settings.json. Ctrl-C at the question refuses the call and cancels the turn.

${safetyHelp}

${providerHelp}`,
	options: { ...agentOptions, ...help },
	load: async () => (await import("./commands/interactive.js")).runInteractiveCommand,
};

/** All subcommands, in the order help lists them. */
export const commands: CommandSpec[] = [
	{
		name: "run",
		summary: "Run one prompt and print the final answer (for scripts).",
		usage: [
			'toolbelt run [options] "<prompt>"',
			"echo '<prompt>' | toolbelt run [options]",
			'git diff | toolbelt run [options] "<prompt>" -',
		],
		description: `Runs the agent on one prompt until it stops. The final answer goes to stdout, progress
(one line per tool call) to stderr. With --json, stdout gets one JSON event per line instead
(streaming updates carry only the delta). Without a prompt argument the prompt is read from
stdin; a '-' argument is replaced by stdin. Exit code: 0 done, 1 error or turn limit,
130 cancelled (Ctrl-C; a second Ctrl-C stops waiting for cleanup).

Print mode cannot ask, so a call that needs approval is refused (the model is told why) and
stderr ends with the exact flags that would allow it. In the default mode that is every file
change and command: pass --mode accept-edits to let the agent edit files, --allow 'bash(npm test)'
for a command, or --mode yolo for everything (deny rules still apply).

${safetyHelp}

${providerHelp}`,
		options: {
			...agentOptions,
			json: { type: "boolean", description: "Print every agent event as one JSON object per line on stdout." },
			...help,
		},
		examples: [
			'toolbelt run "Which tests cover src/engine/validation/validate.ts?"',
			'git diff | toolbelt run --read-only "Review this diff:" -',
			"toolbelt run --mode accept-edits --allow 'bash(npm test:*)' \"Fix the failing test\"",
			'toolbelt run --json "List the TODOs" | jq -c \'select(.type == "tool_execution_end")\'',
		],
		load: async () => (await import("./commands/run.js")).runRunCommand,
	},
	{
		name: "tool",
		summary: "Run one tool directly and print what the model would see.",
		usage: ["toolbelt tool [options] <name> '<json arguments>'", "echo '<json arguments>' | toolbelt tool <name>"],
		description: `Runs a single tool call through the same engine the agent uses: arguments are repaired,
validated and coerced exactly as for a model. Prints the result text the model would read; an
error result goes to stderr with exit code 1. No provider is needed.

The call goes through the same safety layer as the agent's, in yolo mode unless --mode says
otherwise (you typed it yourself, so nothing is asked): the file tools stay inside the working
directory, deny rules from .toolbelt/settings.json apply (its hooks and allow rules only in a
trusted folder: --trust-project), and a write to .git, .toolbelt or .env* needs
--allow 'write(<path>)'. write may replace a file unread.`,
		options: {
			...cwdOption,
			json: { type: "boolean", description: "Print the full result (content, details, isError) as JSON." },
			...toolCommandSafetyOptions,
			...help,
		},
		examples: [
			`toolbelt tool read '{"path": "package.json", "limit": 20}'`,
			`toolbelt tool grep '{"pattern": "TODO", "include": "*.ts"}'`,
			`toolbelt tool bash '{"command": "npm test"}' --json`,
		],
		load: async () => (await import("./commands/tool.js")).runToolCommand,
	},
	{
		name: "tools",
		summary: "Print the tool definitions (names, descriptions, JSON Schemas).",
		usage: ["toolbelt tools [options]"],
		description: `Without --format, lists each tool with its one-line summary. With --format, prints the
definitions as JSON in the shape an API expects. No provider is needed.`,
		options: {
			format: {
				type: "string",
				valueName: "<format>",
				description: "json-schema, openai (Chat Completions tools) or anthropic (Messages tools).",
			},
			...toolSelection,
			...cwdOption,
			...help,
		},
		examples: ["toolbelt tools", "toolbelt tools --format openai --read-only"],
		load: async () => (await import("./commands/tools.js")).runToolsCommand,
	},
	{
		name: "config",
		summary: "Store a default provider, model and base URL (used when no flag is given).",
		usage: [
			"toolbelt config set <key> <value>",
			"toolbelt config get [<key>]",
			"toolbelt config unset <key>",
			"toolbelt config list",
		],
		description: `Stores the defaults run and the session use when no flag gives them, in
~/.toolbelt/config.json (mode 600, only you may write it: it says where your API key is sent).
Keys: provider, model, base-url. Flags win over the stored values, which win over the
environment (OPENAI_BASE_URL); a --provider other than the stored one drops the stored model and
base-url. API keys are not stored: they stay in the environment. An unknown key or a bad value
exits with code 2.`,
		options: { ...help },
		examples: [
			"toolbelt config set provider openai",
			"toolbelt config set base-url http://localhost:11434/v1",
			"toolbelt config set model qwen3:8b",
			"toolbelt config list",
		],
		load: async () => (await import("./commands/config.js")).runConfigCommand,
	},
	{
		name: "undo",
		summary: "Take back the file changes of the last turns or tool calls.",
		usage: ["toolbelt undo [--turns N | --calls N] [--force] [--workspace URL]"],
		description: `Puts the files changed by write, edit and apply_patch back as they were before the last
turn (one prompt, one toolbelt tool run, one MCP request) or the last N turns or calls: content,
permissions, symlinks, and files that did not exist are removed again. Changes made by bash are
not recorded. When a file was changed after the checkpoint by something else, nothing is undone
and the files are listed; --force overwrites them. With --workspace, the remote workspace's
files are checked and put back there.`,
		options: {
			turns: { type: "string", valueName: "<n>", description: "Undo the last N turns. Default: 1." },
			calls: { type: "string", valueName: "<n>", description: "Undo the last N tool calls instead." },
			force: { type: "boolean", description: "Overwrite files changed since the checkpoint." },
			...cwdOption,
			...workspaceOptions,
			...help,
		},
		examples: ["toolbelt undo", "toolbelt undo --calls 3", "toolbelt undo --turns 2 --force"],
		load: async () => (await import("./commands/undo.js")).runUndoCommand,
	},
	{
		name: "checkpoints",
		summary: "List the recorded turns that toolbelt undo can take back.",
		usage: ["toolbelt checkpoints [--workspace URL]"],
		description:
			"Lists the recorded turns of this folder (or of the remote workspace --workspace names), newest first, with their tools and files.",
		options: { ...cwdOption, ...workspaceOptions, ...help },
		load: async () => (await import("./commands/undo.js")).runCheckpointsCommand,
	},
	{
		name: "sessions",
		summary: "List the recorded sessions of this folder (or all), newest first.",
		usage: ["toolbelt sessions [--all] [--limit N] [--json]"],
		description: `Every run, interactive session and MCP client session is recorded as one JSONL file in
$XDG_STATE_HOME/toolbelt/sessions/ (default ~/.local/state/...), a folder only you can read, with
secrets redacted. Each line shows the id, the start, the source, the turns, the tool calls, the
tokens billed and the first prompt. --no-record on run, the session or mcp records nothing.`,
		options: {
			all: { type: "boolean", description: "List the sessions of every folder." },
			limit: { type: "string", valueName: "<n>", description: "Most sessions listed. Default: 20." },
			json: { type: "boolean", description: "Print the list as JSON." },
			...cwdOption,
			...help,
		},
		examples: ["toolbelt sessions", "toolbelt sessions --all --limit 5"],
		load: async () => (await import("./commands/sessions.js")).runSessionsCommand,
	},
	{
		name: "export",
		summary: "Write a recorded session as one self-contained HTML page.",
		usage: ["toolbelt export <id> [--output <file>]"],
		description: `Writes the session (an id from toolbelt sessions, or a unique start of one) as one HTML file
that needs no network to view: the conversation, each tool call with its arguments, coloured diffs
of file changes, command output folded to a preview, errors and blocked calls marked, timings.
Prints the file's path. Secrets were redacted when the session was recorded. The file is mode 600.`,
		options: {
			output: {
				type: "string",
				valueName: "<file>",
				description: "Where to write the page. Default: toolbelt-session-<id>.html here.",
			},
			...help,
		},
		examples: ["toolbelt export 20261202-063512", "toolbelt export 20261202-063512-3f9a1c --output session.html"],
		load: async () => (await import("./commands/sessions.js")).runExportCommand,
	},
	{
		name: "replay",
		summary: "Run a recorded session's tool calls again and report the first divergence.",
		usage: ["toolbelt replay <id> [--cwd <dir> | --workspace <url>]"],
		description: `Runs the recorded tool calls again, in the recorded order and batches (parallel calls
together, sequential ones as barriers), against this folder (a fresh clone, say), or a remote
workspace, with no model. Before each call the files it reads or changes must have the size and
hash the record holds; after it, its result must match the recorded one, ignoring what is known
to vary (the workspace path, durations, dates and times, process ids, temporary names, job ids).
Prints the first divergence (exit 1), or that there was none (exit 0). Calls that were blocked
are not run. The calls run with the safety layer in yolo mode: confinement, deny rules and
protected paths hold.`,
		options: {
			...cwdOption,
			...workspaceOptions,
			...help,
		},
		examples: ["toolbelt replay 20261202-063512 --cwd /tmp/fresh-clone"],
		load: async () => (await import("./commands/replay.js")).runReplayCommand,
	},
];
