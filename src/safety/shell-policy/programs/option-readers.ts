/**
 * What the per-program readers share: the effects a program has besides its own work, and readers
 * of GNU-style options (long ones by name or abbreviation, short ones attached or in the next
 * word) for programs whose writing and running options are listed in an `OptionSpec`.
 */
import { isLiteral, type ShellWord } from "../shell-words.js";

/** What a program does besides its own work, as far as its arguments tell. */
export interface ProgramEffects {
	/** Commands it runs, named literally in its arguments (`find -exec rm {} ;`, `npx eslint`). */
	runs: ShellWord[][];
	/** Literal shell scripts it runs (`npm exec -c 'a && b'`). */
	scripts: string[];
	/** Set when it could run a program that is not named literally: the words that say so. */
	runner?: string;
	/** Files it writes through its options or script. */
	writes: { word: ShellWord; via: string }[];
	/** Folders it works in (`git -C dir`): the relative files it writes are taken from there. */
	directories: ShellWord[];
}

/** Reads one program's words into its effects. */
export type Reader = (words: readonly ShellWord[], effects: ProgramEffects) => void;

/** Marks the program a runner (it could run a program not named literally), with its words. */
export function markRunner(effects: ProgramEffects, words: readonly ShellWord[]): void {
	effects.runner ??= words.map((word) => word.raw).join(" ");
}

/**
 * True when `option` (`--out=x`, `--out`, `--o`) is one of `names` or a GNU-style abbreviation of
 * one. getopt takes any prefix that names one option of the program, a single letter included
 * (`sort --o=f` is `--output`); a prefix that also names an option not listed is taken too, which
 * only ever counts an option as one more write or runner.
 */
export function isLongOption(option: string, names: readonly string[]): boolean {
	if (!option.startsWith("--") || option.length < 3) return false;
	const name = option.slice(2).split("=")[0] as string;
	return name !== "" && names.some((candidate) => candidate.startsWith(name));
}

/** The value of `--name=value`, or of the next word; and how many words it took. */
export function longValue(words: readonly ShellWord[], index: number): { value?: ShellWord; taken: number } {
	const word = words[index] as ShellWord;
	const equals = word.value.indexOf("=");
	if (equals !== -1) {
		const value = word.value.slice(equals + 1);
		return { value: { ...word, raw: value, value }, taken: 0 };
	}
	const next = words[index + 1];
	return next ? { value: next, taken: 1 } : { taken: 0 };
}

/** A short option's value: attached (`-ofile`) or the next word. */
function shortValue(words: readonly ShellWord[], index: number, at: number): { value?: ShellWord; taken: number } {
	const word = words[index] as ShellWord;
	const rest = word.value.slice(at + 1);
	if (rest !== "") return { value: { ...word, raw: rest, value: rest }, taken: 0 };
	const next = words[index + 1];
	return next ? { value: next, taken: 1 } : { taken: 0 };
}

/** Option syntax of a plain GNU-style program with writing and running options. */
interface OptionSpec {
	/** Short options whose value is a file the program writes. */
	writeShort?: string;
	/** Long options whose value is a file the program writes. */
	writeLong?: readonly string[];
	/** Short options that make it run a program (with or without a value). */
	runShort?: string;
	/** Long options that make it run a program. */
	runLong?: readonly string[];
	/** Short options whose value is data (so that it is not read as options). */
	valueShort?: string;
}

/** Reads options by `spec`; an expanded word where an option may stand could be any option. */
export function readOptions(spec: OptionSpec, via: string): Reader {
	return (words, effects) => {
		for (let index = 1; index < words.length; index++) {
			const word = words[index] as ShellWord;
			const text = word.value;
			if (text === "--") return;
			if (!isLiteral(word)) {
				if (spec.runShort || spec.runLong) markRunner(effects, words);
				if (spec.writeShort || spec.writeLong) effects.writes.push({ word, via });
				continue;
			}
			if (!text.startsWith("-") || text === "-") continue;
			if (text.startsWith("--")) {
				if (spec.runLong && isLongOption(text, spec.runLong)) markRunner(effects, words);
				if (spec.writeLong && isLongOption(text, spec.writeLong)) {
					const { value, taken } = longValue(words, index);
					if (value) effects.writes.push({ word: value, via });
					index += taken;
				}
				continue;
			}
			for (let at = 1; at < text.length; at++) {
				const letter = text[at] as string;
				if (spec.runShort?.includes(letter)) markRunner(effects, words);
				if (spec.writeShort?.includes(letter)) {
					const { value, taken } = shortValue(words, index, at);
					if (value) effects.writes.push({ word: value, via });
					index += taken;
					break;
				}
				if (spec.valueShort?.includes(letter)) {
					index += shortValue(words, index, at).taken;
					break;
				}
			}
		}
	};
}
