/** Editors and pagers: their commands (`vim -c`, `less +`) may run any program. */

import { isLiteral, type ShellWord } from "../shell-words.js";
import { markRunner, type ProgramEffects } from "./option-readers.js";

/** Editors whose options or `+` arguments run editor commands, and through them any program. */
export function readEditor(words: readonly ShellWord[], effects: ProgramEffects): void {
	for (const word of words.slice(1)) {
		const text = word.value;
		if (!isLiteral(word) || text.startsWith("+") || /^-(?:c|S|s|u|-cmd)$|^--cmd|^-[a-zA-Z]*[cSsu]$/.test(text))
			markRunner(effects, words);
	}
}

/** Pagers run commands from `+` initial commands and their key file. */
export function readPager(words: readonly ShellWord[], effects: ProgramEffects): void {
	for (const word of words.slice(1)) {
		if (!isLiteral(word) || word.value.startsWith("+") || /^--lesskey|^-k/.test(word.value)) markRunner(effects, words);
	}
}
