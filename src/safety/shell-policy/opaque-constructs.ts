/**
 * The shell constructs that deny and ask rules cannot see through, each with advice for the
 * model on writing the command plainly, so that a block says what to change.
 */

/** The kinds of construct a command line can hide a program behind. */
export type OpaqueConstructName =
	| "case statement"
	| "if statement"
	| "loop"
	| "conditional expression"
	| "function definition"
	| "command substitution"
	| "process substitution"
	| "parameter expansion operator"
	| "translated string"
	| "arithmetic on variables"
	| "array subscript"
	| "line continuation in a word"
	| "redirection expanded twice"
	| "NUL character"
	| "control character"
	| "shell option"
	| "expanded command name"
	| "glob in the command name"
	| "eval"
	| "sourced code"
	| "code run later"
	| "shell reading its input"
	| "script from a variable"
	| "interpreter with inline code"
	| "command runner"
	| "unknown wrapper option"
	| "command from input"
	| "code in a variable"
	| "nesting too deep"
	| "unparsed syntax"
	| "unrecognised syntax"
	| "command too long"
	| "script block"
	| "subexpression"
	| "splatting"
	| "backtick escape"
	| "call operator with an expression"
	| "stop-parsing token"
	| "typographic quote or dash"
	| "PowerShell expression";

/** A construct that makes a command unreadable to the permission rules. */
export interface OpaqueConstruct {
	/** What kind of construct it is. */
	construct: OpaqueConstructName;
	/** The text that made it so (a word, or the command). */
	text: string;
	/** How to write the command so that the rules can read it, written for the model. */
	hint: string;
}

const plainly = "write it as plain commands of literal words joined by |, &&, || or ;";

const hints: Readonly<Record<OpaqueConstructName, string>> = {
	"case statement": `run the branch you need as a plain command (${plainly})`,
	"if statement": `run the commands directly (${plainly}), e.g. \`test -f x && cmd\``,
	loop: "run the commands one by one, or write the loop in a script file in the workspace and run the file",
	"conditional expression": "compare with `[ … ]` or `test` on literal words; avoid -v and arithmetic in [[ ]]",
	"function definition": "run the commands directly instead of defining a function",
	"command substitution": "run the inner command first, then use its output in a second command",
	"process substitution": "write the inner command's output to a file in the workspace first, then use the file",
	"parameter expansion operator": "use $NAME or $" + "{NAME} alone, or write the value literally",
	"translated string":
		'quote the text as "…" or \'…\' without the $ before it (bash looks $"…" up in a message catalog)',
	"arithmetic on variables": "write the number literally",
	"array subscript": "assign plain variables, without [ ] subscripts",
	"line continuation in a word": "write each word on one line (a backslash-newline may only separate words)",
	"shell option":
		"do not turn on shell options that change how later commands are read (set -H, set -k, set -o history/posix, shopt -s cdable_vars/expand_aliases/extdebug…); run the commands directly",
	"control character":
		"remove carriage returns, vertical tabs and form feeds (bash keeps them inside a word); end lines with a plain newline",
	"NUL character": "remove the NUL characters (bash drops them, joining the text on either side)",
	"redirection expanded twice":
		"redirect output to a file with > or &> and a plain file name; bash expands a file name after >& twice",
	"expanded command name": "name the program literally (e.g. `rm f`, not `x=rm; $x f` or `$(echo rm) f`)",
	"glob in the command name": "name the program literally, without *, ?, [ ] or { }",
	eval: "run the command itself instead of passing it to eval",
	"sourced code": "run the commands directly instead of source, . or exec",
	"code run later": "do not define traps, aliases, hashed paths, completions or key bindings; run the command itself",
	"shell reading its input":
		"run the commands directly, or give the shell a literal script in single quotes (bash -c '…') instead of a pipe, heredoc, here-string or a path to its input",
	"script from a variable": "write the script literally in single quotes (bash -c 'command')",
	"interpreter with inline code":
		"run shell commands directly rather than from inline interpreter code; to run code, save it in a file in the workspace and run the file",
	"command runner": "run the inner command directly, without the option that makes this program run other programs",
	"unknown wrapper option": "run the inner command directly, or write the option as --name=value",
	"command from input": "name the program literally after xargs or find -exec, not in the input or the {} placeholder",
	"code in a variable":
		"do not set variables that decide which code runs: code or options in the value (BASH_ENV, PS4, IFS, PAGER, EDITOR, SHELL, CC, NODE_OPTIONS, *FLAGS, RANDOM…), where programs or libraries are found (PATH, *PATH, LD_*), or where configuration is read (HOME, XDG_*, *CONFIG*, GIT_*); run the program by its path (./node_modules/.bin/x) or pass the setting as an option",
	"nesting too deep": "run the innermost command directly",
	"unparsed syntax": "check the command's quoting; the parser could not read it",
	"unrecognised syntax": plainly,
	"command too long": "split the command into several shorter calls",
	"script block":
		"run the commands directly instead of inside { } (ForEach-Object, Where-Object and Invoke-Command blocks included)",
	subexpression: "run the inner command first, then use its output in a second command, without $( ), ( ) or @( )",
	splatting: "pass the arguments literally instead of @name",
	"backtick escape": "write the word without backticks: quote it with '…' instead, and keep each command on one line",
	"call operator with an expression": "name the program literally (e.g. `& ./tool.exe a`, not `& $tool a`)",
	"stop-parsing token": "pass the arguments as quoted words instead of after --%",
	"typographic quote or dash": "write quotes and dashes as plain ASCII ' \" and -",
	"PowerShell expression": `${plainly}; arguments may be literal words, quoted strings or $name / $env:NAME`,
};

/** The construct with its advice. */
export function opaqueConstruct(construct: OpaqueConstructName, text: string): OpaqueConstruct {
	return { construct, text: text.length > 120 ? `${text.slice(0, 120)}…` : text, hint: hints[construct] };
}
