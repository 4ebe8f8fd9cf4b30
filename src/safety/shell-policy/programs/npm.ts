/** `npm exec`, `npx` and `npm` options that run programs. */

import { isLiteral, literalWord, type ShellWord } from "../shell-words.js";
import { isLongOption, markRunner, type ProgramEffects } from "./option-readers.js";

/** `npm exec`/`npx`: the named package's program runs; `-c` runs a shell script. */
export function readPackageExec(words: readonly ShellWord[], start: number, effects: ProgramEffects): void {
	for (let index = start; index < words.length; index++) {
		const word = words[index] as ShellWord;
		const text = word.value;
		if (!isLiteral(word)) {
			markRunner(effects, words);
			return;
		}
		if (text === "--") {
			if (words[index + 1]) effects.runs.push(words.slice(index + 1));
			return;
		}
		if (text === "-c" || text === "--call" || text.startsWith("--call=")) {
			const script = text.startsWith("--call=") ? literalWord(text.slice(7)) : words[index + 1];
			if (script && isLiteral(script)) effects.scripts.push(script.value);
			else markRunner(effects, words);
			return;
		}
		if (/^(?:-p|--package)$/.test(text)) {
			index++;
			continue;
		}
		if (text.startsWith("-")) continue;
		effects.runs.push(words.slice(index));
		return;
	}
}

/** `npm exec`, `npm x` run a program; `--script-shell` runs any program for `npm run`. */
export function readNpm(words: readonly ShellWord[], effects: ProgramEffects): void {
	const command = words.findIndex((word, index) => index > 0 && !word.value.startsWith("-"));
	if (words.some((word) => !isLiteral(word) && word.value.startsWith("-"))) markRunner(effects, words);
	if (words.some((word) => isLongOption(word.value, ["script-shell", "node-options"]))) markRunner(effects, words);
	if (command !== -1 && ["exec", "x"].includes((words[command] as ShellWord).value)) {
		readPackageExec(words, command + 1, effects);
	}
}
