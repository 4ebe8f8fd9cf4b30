/**
 * The words of a command line that is one program and its plain words: a leaf that imports
 * nothing, so that the CLI's start can take it alone (a one-shot `toolbelt tool bash` with a plain
 * command starts without the shell grammar's flags).
 */

/**
 * An argument: characters bash reads literally wherever they stand in a word (no quote, escape,
 * expansion, glob, brace, tilde, comment, operator or history mark). Not `==`, which the grammar
 * reads as an operator even there.
 */
const plainArgument = /^(?!==$)[A-Za-z0-9_./+@%,:=-]+$/;

/**
 * The program's name: letters, digits and `_ . / + , -`, not starting with `+ , -` (a leading
 * `NAME=value` would be an assignment, `%1` a job; the grammar reads a name holding `@`, `%` or
 * `+:` apart from bash, so those are left to it).
 */
const plainProgram = /^[A-Za-z0-9_./][A-Za-z0-9_./+,-]*$/;

/**
 * Names the grammar reads as something other than a plain command, as the first word: bash's
 * reserved words, and the commands it gives nodes of their own (`export`, `declare`, `local`,
 * `readonly`, `typeset`, `unset`, `unsetenv`), whose assignments the parser's reading checks.
 */
const parsedApart = new Set(
	[
		"case coproc do done elif else esac fi for function if in select then time until while",
		"declare export local readonly typeset unset unsetenv",
	]
		.join(" ")
		.split(" "),
);

/** True when bash reads every character of `text` literally wherever it stands in a word (`plainArgument`). */
export function isPlainArgument(text: string): boolean {
	return plainArgument.test(text);
}

/** Blanks between words, and around the line: spaces and tabs only (a newline separates commands). */
const blanks = /[ \t]+/;

/**
 * The words of `command`, program first, when it is one program and its plain words, else
 * undefined. Bounded: one split and a test per word (the caller bounds the line's length).
 */
export function plainCommandTexts(command: string): string[] | undefined {
	const texts = command.split(blanks).filter((text) => text !== "");
	const [program, ...args] = texts;
	if (program === undefined || !plainProgram.test(program) || parsedApart.has(program)) return undefined;
	return args.every((arg) => plainArgument.test(arg)) ? texts : undefined;
}
