/**
 * Reads one simple command (a part from `splitCommand`) as the shell would tokenize it: words
 * with their quotes removed, and redirections apart from the words. Only what a permission
 * check needs is kept: whether a word is a literal the shell will not change (no expansion,
 * no glob, no brace, no syntax), and what each redirection points at.
 */

import { plainRunEnd, specialCharTable } from "./plain-run.js";

/** One word of a simple command. */
export interface ShellWord {
	/** The word as written. */
	raw: string;
	/** The word after quote removal (`"r"m` → `rm`); meaningful only when `literal`. */
	value: string;
	/** The shell expands something in it: `$x`, `${x}`, `$(…)`, `` `…` ``, `$'…'`, `<(…)`. */
	expands: boolean;
	/** It holds an unquoted glob or brace (`*`, `?`, `[`, `{`, `}`), so it may become other words. */
	globs: boolean;
	/** It holds unquoted shell syntax a simple command cannot hold: `(` or `)` (`f()`, a case pattern `a)`). */
	syntax: boolean;
	/** It starts with an unquoted `~` (home expansion). */
	tilde: boolean;
}

/** True when the shell takes the word as written (after quote removal). */
export function isLiteral(word: ShellWord): boolean {
	return !word.expands && !word.globs && !word.syntax;
}

/** A redirection of a simple command: `2>/dev/null`, `>> log`, `&>out`, `<in`, `<<EOF`. */
export interface Redirection {
	/** The operator: `>`, `>>`, `>|`, `&>`, `&>>`, `<>`, `>&`, `<`, `<&`, `<<`, `<<-`, `<<<`. */
	operator: string;
	/** The word after the operator (a file, a descriptor, a heredoc delimiter or a here-string); undefined when missing. */
	target?: ShellWord;
}

/** The words and redirections of one simple command. */
export interface CommandWords {
	/** The words, redirections removed. */
	words: ShellWord[];
	/** The redirections, in order. */
	redirections: Redirection[];
}

const redirectionOperators = [">>", ">|", ">&", "<>", "<<<", "<<-", "<<", "<&", ">", "<"];

/** Characters with a meaning inside a word (quotes, expansions, globs, syntax, blanks), by code below 128. */
const wordSpecialChars = specialCharTable(" \t\n\\'\"$`<>&*?[]{}()");

/** Characters that end a word outside quotes. */
function isBlank(char: string | undefined): boolean {
	return char === " " || char === "\t" || char === "\n";
}

/** The index just past the construct opened at `index` by `open` (one of `(`, `{`), counting nesting and quotes. */
function skipBalanced(text: string, index: number, open: string, close: string): number {
	let depth = 0;
	let position = index;
	while (position < text.length) {
		const char = text[position];
		if (char === "\\") {
			position += 2;
			continue;
		}
		if (char === "'" && open === "(") {
			const end = text.indexOf("'", position + 1);
			position = end === -1 ? text.length : end + 1;
			continue;
		}
		if (char === open) depth++;
		else if (char === close) {
			depth--;
			if (depth === 0) return position + 1;
		}
		position++;
	}
	return text.length;
}

/** The index just past a `$…` expansion starting at `index` (the `$`), or `index + 1` for a lone `$`. */
function skipDollar(text: string, index: number): { end: number; expands: boolean } {
	const next = text[index + 1];
	if (next === "(") return { end: skipBalanced(text, index + 1, "(", ")"), expands: true };
	if (next === "{") return { end: skipBalanced(text, index + 1, "{", "}"), expands: true };
	if (next === "'" || next === '"') return { end: index + 1, expands: true };
	if (next !== undefined && /[A-Za-z0-9_?#@*!$-]/.test(next)) {
		let end = index + 2;
		if (/[A-Za-z_]/.test(next)) while (end < text.length && /[A-Za-z0-9_]/.test(text[end] as string)) end++;
		return { end, expands: true };
	}
	return { end: index + 1, expands: false };
}

interface WordReading {
	word: ShellWord;
	end: number;
}

/** Reads one word from `index` up to a blank or an unquoted redirection operator. */
function readWord(text: string, index: number): WordReading {
	const word: ShellWord = {
		raw: "",
		value: "",
		expands: false,
		globs: false,
		syntax: false,
		tilde: text[index] === "~",
	};
	let position = index;
	while (position < text.length) {
		// Ordinary characters in one step: most words are only these.
		const runEnd = plainRunEnd(text, position, wordSpecialChars);
		if (runEnd > position) {
			word.value += text.slice(position, runEnd);
			position = runEnd;
			continue;
		}
		const char = text[position] as string;
		if (isBlank(char)) break;
		if ((char === "<" || char === ">") && text[position + 1] !== "(") break;
		if (char === "&" && text[position + 1] === ">") break;
		if (char === "\\") {
			word.value += text[position + 1] ?? "";
			position += 2;
		} else if (char === "'") {
			const end = text.indexOf("'", position + 1);
			const stop = end === -1 ? text.length : end;
			word.value += text.slice(position + 1, stop);
			position = stop + 1;
		} else if (char === '"') {
			position = readDoubleQuoted(text, position + 1, word);
		} else if (char === "$" || char === "`") {
			position = readExpansion(text, position, word);
		} else if (char === "<" || char === ">") {
			// A process substitution: `<(…)` or `>(…)`.
			const end = skipBalanced(text, position + 1, "(", ")");
			word.expands = true;
			position = end;
		} else {
			if (char === "*" || char === "?" || char === "[" || char === "{" || char === "}") word.globs = true;
			if (char === "(" || char === ")") word.syntax = true;
			word.value += char;
			position++;
		}
	}
	word.raw = text.slice(index, position);
	return { word, end: position };
}

/** Reads a `$…` or `` `…` `` at `index` into `word` (marking it expanded); returns the index past it. */
function readExpansion(text: string, index: number, word: ShellWord): number {
	if (text[index] === "`") {
		const end = text.indexOf("`", index + 1);
		word.expands = true;
		return end === -1 ? text.length : end + 1;
	}
	const { end, expands } = skipDollar(text, index);
	word.expands ||= expands;
	word.value += text.slice(index, end);
	return end;
}

/** Reads the inside of `"…"` from `index` (after the quote) into `word`; returns the index past the closing quote. */
function readDoubleQuoted(text: string, index: number, word: ShellWord): number {
	let position = index;
	while (position < text.length) {
		const char = text[position] as string;
		if (char === '"') return position + 1;
		if (char === "\\" && /["\\$`\n]/.test(text[position + 1] ?? "")) {
			word.value += text[position + 1];
			position += 2;
		} else if (char === "$" || char === "`") {
			position = readExpansion(text, position, word);
		} else {
			word.value += char;
			position++;
		}
	}
	return position;
}

/** The redirection operator at `index`, if any (`&>` and `&>>` included). */
function operatorAt(text: string, index: number): string | undefined {
	const char = text[index];
	if (char !== "<" && char !== ">" && char !== "&") return undefined;
	if (char === "&") return text[index + 1] === ">" ? (text[index + 2] === ">" ? "&>>" : "&>") : undefined;
	for (const operator of redirectionOperators) if (text.startsWith(operator, index)) return operator;
	return undefined;
}

/** Splits a simple command into its words and redirections. */
export function readCommandWords(part: string): CommandWords {
	const words: ShellWord[] = [];
	const redirections: Redirection[] = [];
	let position = 0;
	while (position < part.length) {
		if (isBlank(part[position])) {
			position++;
			continue;
		}
		const operator = operatorAt(part, position);
		if (operator !== undefined && !(part[position + 1] === "(" && operator.length === 1)) {
			position = readRedirection(part, position, operator, redirections);
			continue;
		}
		const { word, end } = readWord(part, position);
		position = end;
		// `2>x`, `{fd}>x`: a descriptor number or name right before the operator belongs to it.
		const next = part[position];
		if ((next === "<" || next === ">" || next === "&") && /^(?:\d+|\{[A-Za-z_][A-Za-z0-9_]*\})$/.test(word.raw))
			continue;
		if (word.raw !== "") words.push(word);
		else position++;
	}
	return { words, redirections };
}

function readRedirection(part: string, index: number, operator: string, redirections: Redirection[]): number {
	let position = index + operator.length;
	while (isBlank(part[position])) position++;
	if (position >= part.length) {
		redirections.push({ operator });
		return position;
	}
	const { word, end } = readWord(part, position);
	redirections.push(word.raw === "" ? { operator } : { operator, target: word });
	return Math.max(end, position + 1);
}

/** Operators that write to their target (for `>&`, only when the target is not a descriptor). */
const writingOperators = new Set([">", ">>", ">|", "&>", "&>>", "<>", ">&"]);

/** The redirections that write to a file: not `2>&1`, `>&-`, input or heredocs. */
export function writtenTargets(redirections: readonly Redirection[]): ShellWord[] {
	const targets: ShellWord[] = [];
	for (const { operator, target } of redirections) {
		if (!writingOperators.has(operator) || target === undefined) continue;
		if (operator === ">&" && /^(?:\d+-?|-)$/.test(target.raw)) continue;
		targets.push(target);
	}
	return targets;
}
