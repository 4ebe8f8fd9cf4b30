/** Editors and pagers: their commands (`vim -c`, `ed`'s input, `less +`) may run any program. */

import { isLiteral, type ShellWord } from "../shell-words.js";
import { markRunner, type ProgramEffects } from "./option-readers.js";

/**
 * Editors run editor commands, and through them any program: from their options (`vim -c`, `+cmd`,
 * `-S file`), and from their input, which they read as keys or ex commands when it is no terminal
 * (`printf ':!rm x' | vim f`, `ed f < cmds`). Any invocation may run a program.
 */
export function readEditor(words: readonly ShellWord[], effects: ProgramEffects): void {
	markRunner(effects, words);
}

/** Pagers run commands from `+` initial commands and their key file. */
export function readPager(words: readonly ShellWord[], effects: ProgramEffects): void {
	for (const word of words.slice(1)) {
		if (!isLiteral(word) || word.value.startsWith("+") || /^--lesskey|^-k/.test(word.value)) markRunner(effects, words);
	}
}
