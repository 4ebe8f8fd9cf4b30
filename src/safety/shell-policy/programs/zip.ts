/** `zip`: the archive it writes, and the command `-TT` runs to test it. */

import { isLiteral, type ShellWord } from "../shell-words.js";
import { isLongOption, longValue, markRunner, type ProgramEffects } from "./option-readers.js";

/** Options whose value is the next word (data, or a folder for temporary files). */
const valueOptions = /^-(?:b|n|t|tt|TT|P|Z|ds|s|sp|sc|x|i|la|lf|li)$/;

/**
 * `zip -TT cmd` (`--unzip-command`) runs `cmd` through a shell to test the archive; the archive (the
 * first operand) and `-O`/`--output-file` are written. An expanded option may be either.
 */
export function readZip(words: readonly ShellWord[], effects: ProgramEffects): void {
	let archive = false;
	for (let index = 1; index < words.length; index++) {
		const word = words[index] as ShellWord;
		const text = word.value;
		if (!isLiteral(word) && (!archive || text.startsWith("-"))) {
			markRunner(effects, words);
			if (!archive) effects.writes.push({ word, via: "zip" });
			continue;
		}
		if (text.startsWith("-TT") || isLongOption(text, ["unzip-command"])) markRunner(effects, words);
		if (text === "-O" || isLongOption(text, ["output-file"])) {
			const { value, taken } = longValue(words, index);
			if (value) effects.writes.push({ word: value, via: "zip -O" });
			index += taken;
			continue;
		}
		if (valueOptions.test(text)) {
			index++;
			continue;
		}
		if (text.startsWith("-") || archive) continue;
		archive = true;
		effects.writes.push({ word, via: "zip" });
	}
}
