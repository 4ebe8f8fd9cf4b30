/** `cp`, `mv`, `ln` and `install`: the file or folder they write. */

import { isLiteral, type ShellWord } from "../shell-words.js";
import { isLongOption, longValue, type ProgramEffects } from "./option-readers.js";

/** Short options whose value is the next word (when last in a cluster) or attached. */
const shortValues: Readonly<Record<string, string>> = { cp: "St", mv: "St", ln: "St", install: "Stmog" };

/** Long options whose value may be the next word. */
const longValues = ["suffix", "target-directory", "mode", "owner", "group"];

/**
 * The target of a copy, move or link is a written file, judged like a redirection's
 * (`cp x .git/config` writes a protected path as surely as `> .git/config` does): the folder of
 * `-t`/`--target-directory`, else the last operand; every operand of `mv`, which removes its sources.
 * A word that expands may be either.
 */
export function readCopy(name: string, words: readonly ShellWord[], effects: ProgramEffects): void {
	const values = shortValues[name] ?? "";
	const operands: ShellWord[] = [];
	let options = true;
	let targetGiven = false;
	for (let index = 1; index < words.length; index++) {
		const word = words[index] as ShellWord;
		const text = word.value;
		if (!options || !text.startsWith("-") || text === "-") {
			operands.push(word);
			continue;
		}
		if (!isLiteral(word)) {
			effects.writes.push({ word, via: name });
			continue;
		}
		if (text === "--") {
			options = false;
			continue;
		}
		if (text.startsWith("--")) {
			const target = isLongOption(text, ["target-directory"]);
			const valued = target || (isLongOption(text, longValues) && !isLongOption(text, ["target-directory"]));
			if (!valued) continue;
			const { value, taken } = longValue(words, index);
			if (target && value) effects.writes.push({ word: value, via: `${name} --target-directory` });
			targetGiven ||= target;
			index += taken;
			continue;
		}
		const letters = text.slice(1);
		const at = [...letters].findIndex((letter) => values.includes(letter));
		if (at === -1) continue;
		const attached = letters.slice(at + 1);
		const value = attached !== "" ? { ...word, raw: attached, value: attached } : words[index + 1];
		if (attached === "") index++;
		if (letters[at] === "t" && value) effects.writes.push({ word: value, via: `${name} -t` });
		targetGiven ||= letters[at] === "t";
	}
	// mv removes what it moves: its sources are written too.
	if (name === "mv") {
		for (const word of operands) effects.writes.push({ word, via: name });
		return;
	}
	const last = operands[operands.length - 1];
	if (!targetGiven && operands.length >= 2 && last) effects.writes.push({ word: last, via: name });
}
