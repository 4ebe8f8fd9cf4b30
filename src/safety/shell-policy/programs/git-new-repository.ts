/** The folders `git clone`, `git init` and `git worktree add` make: files written, judged like a redirection's. */

import type { ShellWord } from "../shell-words.js";
import { isLongOption, longValue, type ProgramEffects } from "./option-readers.js";

/** Options of clone, init and worktree add whose value is the next word (or attached after `=`). */
const valueOptions: Readonly<Record<string, { short: string; long: readonly string[] }>> = {
	clone: {
		short: "obucj",
		long: [
			"origin",
			"branch",
			"upload-pack",
			"reference",
			"reference-if-able",
			"depth",
			"shallow-since",
			"shallow-exclude",
			"filter",
			"config",
			"template",
			"server-option",
			"jobs",
			"bundle-uri",
			"ref-format",
		],
	},
	init: { short: "b", long: ["template", "initial-branch", "object-format", "ref-format"] },
	worktree: { short: "bB", long: ["reason"] },
};

/**
 * Records the folders git makes as written files: clone's destination (its second operand), init's
 * folder, worktree add's path, and `--separate-git-dir` of clone and init. `rest` are the words
 * after the command's name.
 */
export function recordNewRepository(command: string, rest: readonly ShellWord[], effects: ProgramEffects): void {
	const spec = valueOptions[command];
	if (!spec) return;
	const words = command === "worktree" ? (rest[0]?.value === "add" ? rest.slice(1) : []) : rest;
	const operands: ShellWord[] = [];
	for (let at = 0; at < words.length; at++) {
		const word = words[at] as ShellWord;
		const text = word.value;
		if (text === "--") {
			operands.push(...words.slice(at + 1));
			break;
		}
		if (isLongOption(text, ["separate-git-dir"])) {
			const { value, taken } = longValue(words, at);
			if (value) effects.writes.push({ word: value, via: `git ${command} --separate-git-dir` });
			at += taken;
		} else if (text.startsWith("--")) {
			if (!text.includes("=") && isLongOption(text, spec.long)) at++;
		} else if (text.startsWith("-") && text.length > 1) {
			// A value option ends a cluster; its value is attached or the next word.
			const letters = text.slice(1);
			const valueAt = [...letters].findIndex((letter) => spec.short.includes(letter));
			if (valueAt === letters.length - 1) at++;
		} else operands.push(word);
	}
	const target = command === "clone" ? operands[1] : operands[0];
	if (target) effects.writes.push({ word: target, via: `git ${command}` });
}
