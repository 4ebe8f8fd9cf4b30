/**
 * Most commands a model runs are one program and its plain words (`git status`, `npm test`,
 * `ls -la src`, `seq 1 100000`). Bash gives none of their characters a meaning, so their reading
 * is known without a parse: one simple command, no assignment, no redirection, every word literal.
 * `readBash` reads such a line from `plainWords` exactly as the parser's path reads it (a test
 * compares the two over generated and real command lines), so the rules see the same thing; a
 * start that only judges plain commands never loads the bash grammar (~80 ms of a one-shot
 * `toolbelt tool bash`, and of an MCP session's first call made at once). Anything else is left to
 * the parser.
 */
import { MAX_PARSED_COMMAND_LENGTH } from "./parser.js";
import { literalWord, type ShellWord } from "./shell-words.js";

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

/** Blanks between words, and around the line: spaces and tabs only (a newline separates commands). */
const blanks = /[ \t]+/;

/**
 * The words of `command` when it is one program and its plain words (see the top of this file),
 * else undefined. Bounded: one split and a test per word, on at most the parser's longest input.
 */
export function plainWords(command: string): ShellWord[] | undefined {
	if (command.length > MAX_PARSED_COMMAND_LENGTH) return undefined;
	const texts = command.split(blanks).filter((text) => text !== "");
	const [program, ...args] = texts;
	if (program === undefined || !plainProgram.test(program) || parsedApart.has(program)) return undefined;
	if (!args.every((arg) => plainArgument.test(arg))) return undefined;
	return texts.map(literalWord);
}
