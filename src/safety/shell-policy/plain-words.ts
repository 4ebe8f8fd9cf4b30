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
import { plainCommandTexts } from "./plain-command/index.js";
import { literalWord, type ShellWord } from "./shell-words.js";

/**
 * The words of `command` when it is one program and its plain words (`plainCommandTexts`), else
 * undefined; a line longer than the parser reads is refused by both readings alike.
 */
export function plainWords(command: string): ShellWord[] | undefined {
	if (command.length > MAX_PARSED_COMMAND_LENGTH) return undefined;
	return plainCommandTexts(command)?.map(literalWord);
}
