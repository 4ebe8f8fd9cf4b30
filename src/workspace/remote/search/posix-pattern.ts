import { ToolError } from "../../../engine/index.js";

/** Class escapes the models write (ripgrep and JavaScript know them), spelled for POSIX ERE. */
const outside: Record<string, string> = {
	d: "[0-9]",
	D: "[^0-9]",
	s: "[[:space:]]",
	S: "[^[:space:]]",
	w: "[[:alnum:]_]",
	W: "[^[:alnum:]_]",
	t: "\t",
};
const inside: Record<string, string> = { d: "0-9", s: "[:space:]", w: "[:alnum:]_", t: "\t" };

/**
 * Turns a ripgrep-style regular expression into POSIX ERE for `grep -E`: `\d`, `\s`, `\w` (and
 * their negations) become bracket classes, `(?:` a plain group, lazy quantifiers greedy ones
 * (the same lines match). Look-around and back-references have no ERE form: that throws, with
 * what to do instead.
 */
export function toExtendedRegex(pattern: string): string {
	if (/\(\?<?[=!]/.test(pattern) || /\\[1-9]/.test(pattern)) {
		throw new ToolError(
			"This remote workspace has no ripgrep, and POSIX grep knows no look-around or back-references. Search without them (e.g. a literal part of the text), or install ripgrep there.",
		);
	}
	let result = "";
	let inBrackets = false;
	let afterQuantifier = false;
	for (let index = 0; index < pattern.length; index++) {
		const character = pattern[index] as string;
		const next = pattern[index + 1];
		const quantifierHere = afterQuantifier;
		afterQuantifier = !inBrackets && /[*+?}]/.test(character);
		if (character === "\\" && next !== undefined) {
			const table = inBrackets ? inside : outside;
			result += table[next] ?? `\\${next}`;
			index++;
			afterQuantifier = false;
		} else if (!inBrackets && character === "(" && pattern.startsWith("(?:", index)) {
			result += "(";
			index += 2;
		} else if (!inBrackets && quantifierHere && (character === "?" || character === "+")) {
			// A lazy or possessive quantifier: matching lines are the same with the greedy one.
			afterQuantifier = false;
		} else {
			if (character === "[" && !inBrackets) {
				inBrackets = true;
				result += character;
				// A leading ] or ^] belongs to the class.
				if (pattern[index + 1] === "^") result += pattern[++index];
				if (pattern[index + 1] === "]") result += pattern[++index];
				continue;
			}
			if (character === "]" && inBrackets) inBrackets = false;
			result += character;
		}
	}
	return result;
}

/** Where the first match starts in `text`, by JavaScript's reading of the pattern (undefined when it has none). */
export function matchStartOf(
	text: string,
	request: { pattern: string; literal: boolean; caseSensitive: boolean },
): number | undefined {
	if (request.literal) {
		const found = request.caseSensitive
			? text.indexOf(request.pattern)
			: text.toLowerCase().indexOf(request.pattern.toLowerCase());
		return found === -1 ? undefined : found;
	}
	try {
		const found = new RegExp(request.pattern, request.caseSensitive ? "u" : "iu").exec(text);
		return found ? found.index : undefined;
	} catch {
		return undefined;
	}
}
