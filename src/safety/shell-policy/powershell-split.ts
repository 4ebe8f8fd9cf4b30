/**
 * Splits a shell command line into the simple commands it would run, so that a permission rule
 * can be checked against each of them. `a && b`, `a || b`, `a | b`, `a; b`, `a & b`, newlines,
 * subshells `( … )`, groups `{ …; }`, command substitution `$( … )` and backticks, and process
 * substitution `<( … )` / `>( … )` all yield their inner commands. The split errs on the side of
 * more parts: a construct it does not understand becomes a part of its own, which an allow rule
 * will not match, so the user is asked rather than a command slipping through.
 */

import { plainRunEnd, specialCharTable } from "./plain-run.js";

/** Which shell's quoting and escaping rules apply. */
type ShellDialect = "bash" | "powershell";

/** Reserved words that start a compound command; they run nothing themselves. */
const LEADING_KEYWORDS = new Set(["if", "then", "else", "elif", "do", "while", "until", "!", "{", "}", "time"]);
const TRAILING_KEYWORDS = new Set(["fi", "done", "esac", "}"]);

/** Characters that can change what is a command; every other character is ordinary. */
const specialChars = specialCharTable("\\'\"#$<>`(){}\n;|&");

/** A run of characters inside double quotes with no meaning to the splitter. */
const quotedRun = /[^"\\$`]+/y;

interface Scanner {
	text: string;
	index: number;
	dialect: ShellDialect;
}

/**
 * The simple commands of `command`, trimmed, with reserved words (`if`, `then`, `do`, `{`, …)
 * stripped and whitespace collapsed. The outer command keeps the text of its substitutions
 * (`echo $(date)`), and the substituted command (`date`) is a part of its own.
 */
function splitCommand(command: string, dialect: ShellDialect): string[] {
	const parts: string[] = [];
	const scanner: Scanner = { text: command, index: 0, dialect };
	scanSequence(scanner, parts, undefined);
	const normalized: string[] = [];
	for (const part of parts) {
		const simple = normalizePart(part);
		if (simple !== "") normalized.push(simple);
	}
	return normalized;
}

/** Whitespace other than a lone space: what `normalizePart` has to collapse. */
const uncollapsedSpace = /[^\S ]| {2}/;
/** The longest reserved word; a longer word needs no lookup. */
const KEYWORD_MAX_LENGTH = 5;
/** First characters of leading reserved words and last ones of trailing ones, to skip most lookups. */
const LEADING_KEYWORD_STARTS = new Set([...LEADING_KEYWORDS].map((word) => word.charCodeAt(0)));
const TRAILING_KEYWORD_ENDS = new Set([...TRAILING_KEYWORDS].map((word) => word.charCodeAt(word.length - 1)));

/**
 * Collapses whitespace and strips reserved words around a simple command. Works on the string
 * rather than an array of words, and looks a word up only when its first or last character
 * could belong to a reserved word: this runs once per part of every command checked.
 */
function normalizePart(part: string): string {
	let text = part.trim();
	if (uncollapsedSpace.test(text)) text = text.replace(/\s+/g, " ");
	while (LEADING_KEYWORD_STARTS.has(text.charCodeAt(0))) {
		const space = text.indexOf(" ");
		const word = space === -1 ? text : text.slice(0, space);
		if (word.length > KEYWORD_MAX_LENGTH || !LEADING_KEYWORDS.has(word)) break;
		text = space === -1 ? "" : text.slice(space + 1);
	}
	while (TRAILING_KEYWORD_ENDS.has(text.charCodeAt(text.length - 1))) {
		const space = text.lastIndexOf(" ");
		if (text.length - space - 1 > KEYWORD_MAX_LENGTH || !TRAILING_KEYWORDS.has(text.slice(space + 1))) break;
		text = space === -1 ? "" : text.slice(0, space);
	}
	return text;
}

/**
 * Scans simple commands separated by operators until `closer` (a `)` or `` ` ``) or the end.
 * Pushes every simple command found, including the inner ones of substitutions.
 */
function scanSequence(scanner: Scanner, parts: string[], closer: string | undefined): void {
	const { text, dialect } = scanner;
	// The current command is `current` followed by `text` from `start` up to the scan position.
	// Slicing once per command instead of appending each piece keeps its string flat and cheap
	// to normalize; `current` only collects what comes before a break (an escaped newline, a
	// comment, a subshell).
	let current = "";
	let start = scanner.index;
	while (scanner.index < text.length) {
		// Ordinary characters in one step: only the ones below can change what is a command.
		const runEnd = plainRunEnd(text, scanner.index, specialChars);
		if (runEnd > scanner.index) {
			scanner.index = runEnd;
			continue;
		}
		const char = text[scanner.index] as string;
		const next = text[scanner.index + 1];
		if (closer !== undefined && char === closer) {
			parts.push(current + text.slice(start, scanner.index));
			scanner.index++;
			return;
		}
		if (char === "\\" && dialect === "bash") {
			// A backslash-newline joins lines; any other escaped character is literal.
			if (next === "\n") {
				current += `${text.slice(start, scanner.index)} `;
				start = scanner.index + 2;
			}
			scanner.index += 2;
			continue;
		}
		if (char === "`" && dialect === "powershell") {
			scanner.index += 2;
			continue;
		}
		if (char === "'") {
			const end = text.indexOf("'", scanner.index + 1);
			scanner.index = end === -1 ? text.length : end + 1;
			continue;
		}
		if (char === '"') {
			scanDoubleQuoted(scanner, parts);
			continue;
		}
		if (char === "#") {
			const before = current + text.slice(start, scanner.index);
			if (before === "" || /\s$/.test(before)) {
				const end = text.indexOf("\n", scanner.index);
				current = before;
				scanner.index = end === -1 ? text.length : end;
				start = scanner.index;
				continue;
			}
		}
		if (char === "$" && next === "(" && text[scanner.index + 2] === "(" && dialect === "bash") {
			scanArithmetic(scanner, parts);
			continue;
		}
		if ((char === "$" || char === "<" || char === ">") && next === "(") {
			scanSubstitution(scanner, parts, 2, ")");
			continue;
		}
		if (char === "`" && dialect === "bash") {
			scanSubstitution(scanner, parts, 1, "`");
			continue;
		}
		if (char === "(") {
			const before = current + text.slice(start, scanner.index);
			if (before.trim() === "") {
				// A subshell: its commands are parts; the parentheses run nothing themselves.
				current = before;
				scanner.index++;
				scanSequence(scanner, parts, ")");
				start = scanner.index;
				continue;
			}
		}
		if (char === "{" && dialect === "powershell") {
			// A script block may run anything: its statements are parts of their own.
			scanner.index++;
			scanSequence(scanner, parts, "}");
			continue;
		}
		const operator = operatorAt(text, scanner.index, current, start);
		if (operator > 0) {
			parts.push(current + text.slice(start, scanner.index));
			current = "";
			scanner.index += operator;
			start = scanner.index;
			continue;
		}
		scanner.index++;
	}
	parts.push(current + text.slice(start, scanner.index));
}

/**
 * Length of a command-separating operator at `index`, or 0. Redirections (`2>&1`, `&>`) are not
 * operators. The command so far is `current` followed by `text` from `start` to `index`.
 */
function operatorAt(text: string, index: number, current: string, start: number): number {
	const char = text[index];
	const next = text[index + 1];
	if (char === "\n" || char === ";") return next === ";" && char === ";" ? 2 : 1;
	if (char === "|") return next === "|" || next === "&" ? 2 : 1;
	if (char === "&") {
		if (next === "&") return 2;
		if (next === ">") return 0;
		const previous = index > start ? text[index - 1] : current[current.length - 1];
		if (previous === "<" || previous === ">") return 0;
		return 1;
	}
	return 0;
}

/** Scans `"…"`, collecting substitutions inside it as parts; returns the quoted text. */
function scanDoubleQuoted(scanner: Scanner, parts: string[]): string {
	const { text, dialect } = scanner;
	const start = scanner.index;
	scanner.index++;
	while (scanner.index < text.length) {
		const char = text[scanner.index];
		const next = text[scanner.index + 1];
		if ((char === "\\" && dialect === "bash") || (char === "`" && dialect === "powershell")) {
			scanner.index += 2;
			continue;
		}
		if (char === '"') {
			scanner.index++;
			break;
		}
		quotedRun.lastIndex = scanner.index;
		const run = quotedRun.exec(text);
		if (run) {
			scanner.index += run[0].length;
			continue;
		}
		if (char === "$" && next === "(") {
			if (text[scanner.index + 2] === "(" && dialect === "bash") scanArithmetic(scanner, parts);
			else scanSubstitution(scanner, parts, 2, ")");
			continue;
		}
		if (char === "`" && dialect === "bash") {
			scanSubstitution(scanner, parts, 1, "`");
			continue;
		}
		scanner.index++;
	}
	return text.slice(start, scanner.index);
}

/** Scans a substitution opened by `openLength` characters; its commands become parts. Returns its text. */
function scanSubstitution(scanner: Scanner, parts: string[], openLength: number, closer: string): string {
	const start = scanner.index;
	scanner.index += openLength;
	scanSequence(scanner, parts, closer);
	return scanner.text.slice(start, scanner.index);
}

/** Scans `$(( … ))`: arithmetic runs nothing, but substitutions inside it do. Returns its text. */
function scanArithmetic(scanner: Scanner, parts: string[]): string {
	const { text } = scanner;
	const start = scanner.index;
	scanner.index += 3;
	let depth = 2;
	while (scanner.index < text.length && depth > 0) {
		const char = text[scanner.index];
		if (char === "$" && text[scanner.index + 1] === "(" && text[scanner.index + 2] !== "(") {
			scanSubstitution(scanner, parts, 2, ")");
			continue;
		}
		if (char === "`") {
			scanSubstitution(scanner, parts, 1, "`");
			continue;
		}
		if (char === "(") depth++;
		if (char === ")") depth--;
		scanner.index++;
	}
	return text.slice(start, scanner.index);
}

/** The statements of a PowerShell command line, split as `splitCommand` does (bash is read by the parser instead). */
export function splitPowerShell(command: string): string[] {
	return splitCommand(command, "powershell");
}
