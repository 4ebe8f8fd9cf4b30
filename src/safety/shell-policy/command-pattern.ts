/**
 * Command patterns of rules (`bash(npm run test:*)`, `bash(git * --dry-run)`): compiled to a
 * regular expression for allow rules, which match a command as written; and matched with
 * expansions as wildcards for deny and ask rules, so that an argument an expansion could become
 * counts as present (`git push $F` matches `git push --force`).
 */
import type { ShellDialect } from "./command-analysis.js";
import { UNKNOWN } from "./shell-words.js";

/** The parts of a specifier: its text with whitespace collapsed, and whether it ends in `:*`. */
function specifierParts(specifier: string): { text: string; prefix: boolean } {
	let text = specifier.trim().replace(/\s+/g, " ");
	const prefix = text.endsWith(":*") && !text.endsWith("\\:*");
	if (prefix) text = text.slice(0, -2).trimEnd();
	return { text, prefix };
}

/**
 * Compiles a command specifier: `npm run test:*` matches `npm run test` alone or followed by
 * arguments; `*` elsewhere matches any text (`git * --dry-run`); `\*` is a literal star; anything
 * else must equal the command (whitespace collapsed). PowerShell commands match case-insensitively.
 */
export function compileCommandPattern(specifier: string, dialect: ShellDialect): RegExp {
	const { text, prefix } = specifierParts(specifier);
	let source = "";
	for (let index = 0; index < text.length; index++) {
		const char = text[index] as string;
		if (char === "\\" && text[index + 1] === "*") {
			source += "\\*";
			index++;
		} else if (char === "*") {
			source += ".*";
		} else {
			source += char.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
		}
	}
	return new RegExp(`^${source}${prefix ? "(?: .*)?" : ""}$`, dialect === "powershell" ? "is" : "s");
}

/** One element of a deny pattern: a literal character or `*` (any text). */
type Element = string | typeof ANY;
const ANY = Symbol("any text");

/** A pattern for deny and ask rules, matched by `matchesForm`. */
export interface FormPattern {
	elements: Element[];
	/** The pattern with ` *` added for a `:*` specifier (the arguments that may follow). */
	withArguments?: Element[];
	caseInsensitive: boolean;
}

/** Compiles a specifier for `matchesForm`. */
export function compileFormPattern(specifier: string, dialect: ShellDialect): FormPattern {
	const { text, prefix } = specifierParts(specifier);
	const caseInsensitive = dialect === "powershell";
	const elements: Element[] = [];
	for (let index = 0; index < text.length; index++) {
		const char = text[index] as string;
		if (char === "\\" && text[index + 1] === "*") {
			elements.push("*");
			index++;
		} else elements.push(char === "*" ? ANY : caseInsensitive ? char.toLowerCase() : char);
	}
	const pattern: FormPattern = { elements, caseInsensitive };
	if (prefix) pattern.withArguments = [...elements, " ", ANY];
	return pattern;
}

/** The longest form compared, so that matching stays bounded (a longer form is cut, which only loses matches after it). */
const MAX_FORM_LENGTH = 4096;

/**
 * Does `form` (a command after quote removal, `UNKNOWN` where an expansion stands) match the
 * pattern, when each `UNKNOWN` may stand for any text — several words, or none?
 */
export function matchesForm(pattern: FormPattern, form: string): boolean {
	let subject = form.length > MAX_FORM_LENGTH ? `${form.slice(0, MAX_FORM_LENGTH)}${UNKNOWN}` : form;
	if (pattern.caseInsensitive) subject = subject.toLowerCase();
	if (matchElements(pattern.elements, subject)) return true;
	return pattern.withArguments !== undefined && matchElements(pattern.withArguments, subject);
}

/** Matching by dynamic programming over (pattern position, subject position): linear in their product. */
function matchElements(elements: readonly Element[], subject: string): boolean {
	// reachable[i] is true when the first i elements can match the subject read so far.
	let reachable = new Uint8Array(elements.length + 1);
	reachable[0] = 1;
	const closeOverStars = (row: Uint8Array) => {
		for (let index = 0; index < elements.length; index++) {
			if (row[index] && elements[index] === ANY) row[index + 1] = 1;
		}
	};
	closeOverStars(reachable);
	for (const char of subject) {
		const next = new Uint8Array(elements.length + 1);
		if (char === UNKNOWN) {
			// An unknown value can stand for any run of the pattern from any reachable point on.
			let from = -1;
			for (let index = 0; index <= elements.length; index++) {
				if (reachable[index] && from === -1) from = index;
				if (from !== -1) next[index] = 1;
			}
		} else {
			for (let index = 0; index < elements.length; index++) {
				if (!reachable[index]) continue;
				const element = elements[index];
				if (element === ANY) next[index] = 1;
				else if (element === char) next[index + 1] = 1;
			}
		}
		closeOverStars(next);
		reachable = next;
	}
	return reachable[elements.length] === 1;
}

/**
 * Why a command specifier can never match, read without the parser (rules are checked when they
 * load, before any command is): it spans several commands, or starts with a reserved word or a
 * comment. Undefined when it is fine.
 */
export function specifierProblem(specifier: string): string | undefined {
	const { text } = specifierParts(specifier);
	let quote: string | undefined;
	for (let index = 0; index < text.length; index++) {
		const char = text[index] as string;
		if (quote) {
			if (char === quote) quote = undefined;
			else if (char === "\\" && quote === '"') index++;
			continue;
		}
		if (char === "\\") {
			index++;
			continue;
		}
		if (char === "'" || char === '"') quote = char;
		else if (char === "\n" || char === ";" || (char === "|" && text[index - 1] !== ">") || text.startsWith("&&", index))
			return "a rule matches one simple command, and this holds several (joined by ;, |, && or ||); write one rule per command";
		else if (char === "#" && (index === 0 || text[index - 1] === " ")) return "commands are matched without comments";
	}
	const first = text.split(" ")[0] ?? "";
	if (/^(?:time|if|then|else|elif|fi|do|done|while|until|for|case|esac|!|\{|\}|\(|\))$/.test(first)) {
		return `commands are matched without reserved words such as ${first}`;
	}
	return undefined;
}
