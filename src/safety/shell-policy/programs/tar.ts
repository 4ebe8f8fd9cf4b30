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

/** Modes that write the archive: create, append, update, concatenate, delete from it. */
const archiveModesLong = ["create", "append", "update", "catenate", "concatenate", "delete"];

/** Long options whose value is a file tar writes besides the archive (the incremental snapshot, the index). */
const tarWriteLong = ["listed-incremental", "index-file"];

/** Short options that take a value: in a `-` cluster the rest of it or the next word; in a bundle, the next words in turn. */
const valueLetters = "bCfFgHIKLNTVX";

/** What `readTar` gathers across the words. */
interface TarState {
	extract: boolean;
	writesArchive: boolean;
	directory: ShellWord;
	archive?: ShellWord;
	writes: ShellWord[];
}

/** A short option's value: records the directory, the archive and the snapshot file. */
function shortValue(state: TarState, letter: string, value: ShellWord | undefined): void {
	if (!value) return;
	if (letter === "C") state.directory = value;
	if (letter === "f") state.archive = value;
	if (letter === "g") state.writes.push(value);
}

/**
 * `tar`: options that run programs; `x` writes below `-C` (or here); `c`, `r`, `u`, `A` and
 * `--delete` write the archive (`-f`), and `-g`/`--index-file` write their files.
 */
export function readTar(words: readonly ShellWord[], effects: ProgramEffects): void {
	const state: TarState = { extract: false, writesArchive: false, directory: literalWord("."), writes: [] };
	for (let index = 1; index < words.length; index++) {
		const word = words[index] as ShellWord;
		const text = word.value;
		if (!isLiteral(word)) {
			markRunner(effects, words);
			effects.writes.push({ word, via: "tar" });
			continue;
		}
		if (text.startsWith("--")) {
			if (isLongOption(text, tarRunLong)) markRunner(effects, words);
			if (isLongOption(text, ["extract", "get"])) state.extract = true;
			if (isLongOption(text, archiveModesLong)) state.writesArchive = true;
			if (isLongOption(text, ["absolute-names"])) markRunner(effects, words);
			const valued = ["directory", "file", ...tarWriteLong].filter((name) => isLongOption(text, [name]));
			if (valued.length > 0) {
				const { value, taken } = longValue(words, index);
				index += taken;
				if (value && valued.includes("directory")) state.directory = value;
				if (value && valued.includes("file")) state.archive = value;
				if (value && valued.some((name) => tarWriteLong.includes(name))) state.writes.push(value);
			}
			continue;
		}
		// The first word may be a bundle of letters without a dash (`tar xzf a.tar`).
		const bundle = !text.startsWith("-") && index === 1;
		const cluster = text.startsWith("-") ? text.slice(1) : bundle ? text : "";
		// In a `-` cluster, the rest after a letter that takes a value is that value (`-fx.tar`).
		const valueAt = bundle ? -1 : [...cluster].findIndex((letter) => valueLetters.includes(letter));
		const letters = valueAt === -1 ? cluster : cluster.slice(0, valueAt + 1);
		if (/[IFP]/.test(letters)) markRunner(effects, words);
		if (letters.includes("x")) state.extract = true;
		if (/[cruA]/.test(letters)) state.writesArchive = true;
		if (bundle) {
			// Each letter that takes a value takes the next word, in turn.
			for (const letter of letters) if (valueLetters.includes(letter)) shortValue(state, letter, words[++index]);
			continue;
		}
		if (valueAt !== -1) {
			const rest = cluster.slice(valueAt + 1);
			shortValue(state, cluster[valueAt] as string, rest === "" ? words[++index] : { ...word, raw: rest, value: rest });
		}
	}
	if (state.extract) effects.writes.push({ word: state.directory, via: "tar -x" });
	if (state.writesArchive && state.archive && state.archive.value !== "-")
		effects.writes.push({ word: state.archive, via: "tar -f" });
	for (const write of state.writes) effects.writes.push({ word: write, via: "tar" });
}
