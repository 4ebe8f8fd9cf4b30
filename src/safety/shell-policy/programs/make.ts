/** `make`: code given on its command line. */

import { expandsOnlyByAssignmentTilde, isLiteral, type ShellWord } from "../shell-words.js";
import { isLongOption, markRunner, type ProgramEffects } from "./option-readers.js";

/**
 * `make --eval` (`-E`, attached or not, or any abbreviation: `--ev=…`), a makefile read from its
 * input and a shell override run code the rules cannot read; a Makefile is a file, like a script.
 */
export function readMake(words: readonly ShellWord[], effects: ProgramEffects): void {
	for (let index = 1; index < words.length; index++) {
		const word = words[index] as ShellWord;
		const text = word.value;
		const makefile = isLongOption(text, ["file", "makefile"]);
		const fromInput = makefile && (text.endsWith("=-") || (!text.includes("=") && words[index + 1]?.value === "-"));
		if (
			// `PREFIX=~/x` is a make variable whose tilde bash expands: still data.
			(!isLiteral(word) && !expandsOnlyByAssignmentTilde(word)) ||
			fromInput ||
			isLongOption(text, ["eval"]) ||
			/^(?:-E|SHELL=|\.SHELLFLAGS=|MAKEFLAGS=|-f-?$)/.test(text)
		)
			markRunner(effects, words);
	}
}
