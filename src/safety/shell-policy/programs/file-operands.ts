/** Programs whose operands are the files they change: `rm`, `touch`, `truncate`, `chmod`, `mkdir`… */

import { isLiteral, type ShellWord } from "../shell-words.js";
import type { ProgramEffects, Reader } from "./option-readers.js";

/** How one such program reads its words. */
interface OperandSpec {
	/** Short options whose value is the next word (when last in a cluster) or attached. */
	values?: string;
	/** Long options whose value may be the next word (`--reference FILE`). */
	longValues?: readonly string[];
	/** Operands before the files: `chmod MODE`, `chown OWNER`. */
	leading?: number;
}

const specs: Readonly<Record<string, OperandSpec>> = {
	rm: {},
	rmdir: {},
	unlink: {},
	shred: { values: "ns", longValues: ["iterations", "size", "random-source", "remove"] },
	touch: { values: "dtr", longValues: ["date", "reference", "time"] },
	truncate: { values: "sr", longValues: ["size", "reference"] },
	mkdir: { values: "m", longValues: ["mode", "context"] },
	chmod: { longValues: ["reference"], leading: 1 },
	chown: { longValues: ["reference", "from"], leading: 1 },
	chgrp: { longValues: ["reference"], leading: 1 },
};

/**
 * Each file operand is a written file, judged like a redirection's: an allow rule for `rm` is no
 * rule for removing a file outside the workspace or a protected one. A word that expands where an
 * option may stand may be a file too. (`--reference` of chmod names a file read, not written.)
 */
function readFileOperands(name: string, spec: OperandSpec): Reader {
	return (words: readonly ShellWord[], effects: ProgramEffects) => {
		let leading = spec.leading ?? 0;
		let options = true;
		for (let index = 1; index < words.length; index++) {
			const word = words[index] as ShellWord;
			const text = word.value;
			if (options && text === "--") {
				options = false;
				continue;
			}
			// chmod's mode may start with `-` (`chmod -w f`): then it is the leading operand, no option.
			const mode = leading > 0 && /^-[rwxXst]+$/.test(text);
			if (options && !mode && text.startsWith("-") && text !== "-" && isLiteral(word)) {
				if (text.startsWith("--")) {
					const longName = text.slice(2);
					if (!text.includes("=") && spec.longValues?.some((candidate) => candidate.startsWith(longName))) index++;
					// `chmod --reference=FILE MODE`-less form: the mode operand is given by the file.
					if (longName.startsWith("reference")) leading = 0;
					continue;
				}
				const letters = text.slice(1);
				const at = [...letters].findIndex((letter) => spec.values?.includes(letter));
				if (at === letters.length - 1) index++;
				continue;
			}
			if (leading > 0) {
				leading--;
				continue;
			}
			effects.writes.push({ word, via: name });
		}
	};
}

/** The readers of these programs, by name. */
export const fileOperandReaders: Readonly<Record<string, Reader>> = Object.fromEntries(
	Object.entries(specs).map(([name, spec]) => [name, readFileOperands(name, spec)]),
);
