/** `make`: code given on its command line. */

import { isLiteral, type ShellWord } from "../shell-words.js";
import { markRunner, type ProgramEffects } from "./option-readers.js";

/** `make --eval` and a shell override run code the rules cannot read; a Makefile is a file, like a script. */
export function readMake(words: readonly ShellWord[], effects: ProgramEffects): void {
	for (const word of words.slice(1)) {
		if (
			!isLiteral(word) ||
			/^(?:--eval|-E$|SHELL=|\.SHELLFLAGS=|MAKEFLAGS=|-f-?$|--file=-|--makefile=-)/.test(word.value)
		)
			markRunner(effects, words);
	}
}
