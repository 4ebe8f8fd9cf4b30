/** `sed`: writing and running through its options and its script. */

import { isLiteral, literalWord, type ShellWord } from "../shell-words.js";
import { isLongOption, markRunner, type ProgramEffects } from "./option-readers.js";
import { readSedScript } from "./sed-script.js";

/** `sed`: `-i` writes its files, the script's `w` writes and its `e` runs; `-f` reads a script file. */
export function readSed(words: readonly ShellWord[], effects: ProgramEffects): void {
	const scripts: ShellWord[] = [];
	const operands: ShellWord[] = [];
	let inPlace = false;
	let sandbox = false;
	for (let index = 1; index < words.length; index++) {
		const word = words[index] as ShellWord;
		const text = word.value;
		if (!isLiteral(word)) {
			// An expansion or a glob may become `-e 'e cmd'` or `--in-place` (file names can start with `-`).
			markRunner(effects, words);
			operands.push(word);
			continue;
		}
		// Long options by any abbreviation getopt takes (`--exp=…` is `--expression`); only `--sandbox`,
		// which takes effects away, must be spelt in full.
		if (text === "--sandbox") sandbox = true;
		else if (text === "-e" || (isLongOption(text, ["expression"]) && !text.includes("="))) {
			const script = words[++index];
			if (script) scripts.push(script);
		} else if (isLongOption(text, ["expression"])) scripts.push(literalWord(text.slice(text.indexOf("=") + 1)));
		else if (text === "-f" || isLongOption(text, ["file"]) || /^-[a-zA-Z]*f/.test(text)) markRunner(effects, words);
		else if (isLongOption(text, ["in-place"]) || /^-[nrEsuz]*i/.test(text)) inPlace = true;
		else if (/^-[a-zA-Z]*e$/.test(text)) {
			inPlace ||= /^-[a-zA-Z]*i/.test(text);
			const script = words[++index];
			if (script) scripts.push(script);
		} else if (text === "-l" || (isLongOption(text, ["line-length"]) && !text.includes("="))) index++;
		else if (text.startsWith("-") && text !== "-") continue;
		else operands.push(word);
	}
	if (scripts.length === 0 && operands.length > 0) scripts.push(operands.shift() as ShellWord);
	for (const script of scripts) {
		if (!isLiteral(script)) {
			markRunner(effects, words);
			continue;
		}
		const read = readSedScript(script.value);
		if (read.runs && !sandbox) markRunner(effects, words);
		if (!sandbox) for (const path of read.writes) effects.writes.push({ word: literalWord(path), via: "sed w" });
	}
	if (inPlace) for (const operand of operands) effects.writes.push({ word: operand, via: "sed -i" });
}
