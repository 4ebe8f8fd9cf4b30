/** `find`: the commands its actions run and the files they write or delete. */

import { isLiteral, literalWord, maySplit, type ShellWord } from "../shell-words.js";
import { markRunner, type ProgramEffects } from "./option-readers.js";

/** find's primaries that run a program, write or delete. */
const actions = ["-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls"];

/**
 * True when bash may turn `word` into one of find's actions: a brace expansion, or a glob that
 * matches an action's name (a file `./-delete` makes `-d*` that word). `*.ts` cannot.
 */
function mayBecomeAction(word: ShellWord): boolean {
	if (!maySplit(word)) return false;
	// Quotes, escapes and braces are not worth reading as a pattern: any such word may be one.
	if (/[{}'"\\$]/.test(word.raw) || word.raw.length > 64) return true;
	const source = word.raw
		.replace(/[.+^()|]/g, "\\$&")
		.replaceAll("*", ".*")
		.replaceAll("?", ".")
		.replaceAll("[!", "[^");
	try {
		const pattern = new RegExp(`^${source}$`, "s");
		return actions.some((action) => pattern.test(action));
	} catch {
		return true;
	}
}

/** `find`: `-exec`-like actions run a command, `-fprint*`/`-fls` write, `-delete` removes below its starting points. */
export function readFind(words: readonly ShellWord[], effects: ProgramEffects): void {
	const starts: ShellWord[] = [];
	let expression = false;
	for (let index = 1; index < words.length; index++) {
		const word = words[index] as ShellWord;
		const text = word.value;
		if ((!isLiteral(word) && word.expands) || mayBecomeAction(word)) {
			// `find "$x"` may be `-exec …` or `-delete`: any action; so may `{-delete,}` or a glob matching `-delete`.
			markRunner(effects, words);
			effects.writes.push({ word, via: "find" });
			continue;
		}
		if (!expression && !/^[-(!]/.test(text)) {
			starts.push(word);
			continue;
		}
		expression = true;
		if (/^-(?:exec|execdir|ok|okdir)$/.test(text)) {
			let end = index + 1;
			while (end < words.length && !/^(?:;|\+)$/.test((words[end] as ShellWord).value)) end++;
			const inner = words.slice(index + 1, end);
			if (inner[0]?.value.includes("{}")) markRunner(effects, words);
			else effects.runs.push(inner);
			index = end;
		} else if (/^-(?:fprint|fprint0|fprintf|fls)$/.test(text)) {
			const target = words[index + 1];
			if (target) effects.writes.push({ word: target, via: text });
			index += text === "-fprintf" ? 2 : 1;
		} else if (text === "-delete") {
			for (const start of starts.length > 0 ? starts : [literalWord(".")])
				effects.writes.push({ word: start, via: "find -delete" });
		}
	}
}
