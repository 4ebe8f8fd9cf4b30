/** `tar`: options that run programs, and what it writes. */

import { isLiteral, literalWord, type ShellWord } from "../shell-words.js";
import { isLongOption, longValue, markRunner, type ProgramEffects } from "./option-readers.js";

/** GNU tar options that run a program (`--checkpoint-action=exec=…`, `-I prog`, `--to-command`). */
const tarRunLong = [
	"checkpoint-action",
	"to-command",
	"use-compress-program",
	"info-script",
	"new-volume-script",
	"rsh-command",
	"rmt-command",
];

/** `tar`: options that run programs; `x` writes below `-C` (or here), `c`/`r`/`u` write the archive. */
export function readTar(words: readonly ShellWord[], effects: ProgramEffects): void {
	let extract = false;
	let directory: ShellWord = literalWord(".");
	for (let index = 1; index < words.length; index++) {
		const word = words[index] as ShellWord;
		const text = word.value;
		if (!isLiteral(word)) {
			markRunner(effects, words);
			continue;
		}
		if (text.startsWith("--")) {
			if (isLongOption(text, tarRunLong)) markRunner(effects, words);
			if (isLongOption(text, ["extract", "get"])) extract = true;
			if (isLongOption(text, ["absolute-names"])) markRunner(effects, words);
			if (isLongOption(text, ["directory"])) {
				const { value, taken } = longValue(words, index);
				if (value) directory = value;
				index += taken;
			}
			continue;
		}
		// The first word may be a bundle of letters without a dash (`tar xzf a.tar`).
		const letters = text.startsWith("-") ? text.slice(1) : index === 1 ? text : "";
		if (/[IFP]/.test(letters)) markRunner(effects, words);
		if (letters.includes("x")) extract = true;
		if (text === "-C") {
			const value = words[index + 1];
			if (value) directory = value;
			index++;
		}
	}
	if (extract) effects.writes.push({ word: directory, via: "tar -x" });
}
