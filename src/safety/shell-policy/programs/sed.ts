/** `sed`: writing and running through its options and its script. */

import { isLiteral, literalWord, type ShellWord } from "../shell-words.js";
import { markRunner, type ProgramEffects } from "./option-readers.js";
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
		if (text === "--sandbox") sandbox = true;
		else if (text === "-e" || text === "--expression") {
			const script = words[++index];
			if (script) scripts.push(script);
		} else if (text.startsWith("--expression=")) scripts.push(literalWord(text.slice(13)));
		else if (text === "-f" || text.startsWith("--file") || /^-[a-zA-Z]*f/.test(text)) markRunner(effects, words);
		else if (text.startsWith("--in-place") || /^-[nrEsuz]*i/.test(text)) inPlace = true;
		else if (/^-[a-zA-Z]*e$/.test(text)) {
			inPlace ||= /^-[a-zA-Z]*i/.test(text);
			const script = words[++index];
			if (script) scripts.push(script);
		} else if (text === "-l" || text === "--line-length") index++;
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
