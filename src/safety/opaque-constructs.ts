/**
 * The shell constructs that deny and ask rules cannot see through, each with advice for the
 * model on writing the command plainly, so that a block says what to change.
 */

/** The kinds of construct a command line can hide a program behind. */
export type OpaqueConstructName =
	| "case statement"
	| "coproc"
	| "function definition"
	| "select loop"
	| "expanded command name"
	| "glob in the command name"
	| "eval"
	| "shell reading its input"
	| "script from a variable"
	| "interpreter with inline code"
	| "command runner"
	| "unknown wrapper option"
	| "command from input"
	| "code in a variable"
	| "alias definition"
	| "nesting too deep"
	| "expanded write target";

/** A construct that makes a command unreadable to the permission rules. */
export interface OpaqueConstruct {
	/** What kind of construct it is. */
	construct: OpaqueConstructName;
	/** The text that made it so (a word, or the command). */
	text: string;
	/** How to write the command so that the rules can read it, written for the model. */
	hint: string;
}

const hints: Readonly<Record<OpaqueConstructName, string>> = {
	"case statement": "write each branch as a plain command (or use if/elif with plain commands)",
	coproc: "run the command directly (end it with & to run it in the background)",
	"function definition": "run the commands directly instead of defining a function",
	"select loop": "run the commands directly",
	"expanded command name": "name the program literally (e.g. `rm f`, not `x=rm; $x f` or `$" + "{x:-rm} f`)",
	"glob in the command name": "name the program literally, without *, ?, [ ] or { }",
	eval: "run the command itself instead of passing it to eval or trap",
	"shell reading its input":
		"run the commands directly, or give the shell a literal script in single quotes (bash -c '…') instead of a pipe, heredoc or here-string",
	"script from a variable": "write the script literally in single quotes (bash -c 'command')",
	"interpreter with inline code":
		"run shell commands directly rather than from inline interpreter code; to run code, save it in a file in the workspace and run the file",
	"command runner": "run the inner command directly, without the runner",
	"unknown wrapper option": "run the inner command directly, or write the option as --name=value",
	"command from input": "name the program literally after xargs or find -exec, not in the input or the {} placeholder",
	"code in a variable": "do not set BASH_ENV, ENV, PS4, PROMPT_COMMAND or exported functions in the command",
	"alias definition": "run the command itself instead of defining an alias",
	"nesting too deep": "run the innermost command directly",
	"expanded write target":
		"write the path after > (or given to tee) literally, without $, `…`, globs or a cd the rules cannot read",
};

/** The construct with its advice. */
export function opaqueConstruct(construct: OpaqueConstructName, text: string): OpaqueConstruct {
	return { construct, text: text.length > 120 ? `${text.slice(0, 120)}…` : text, hint: hints[construct] };
}
