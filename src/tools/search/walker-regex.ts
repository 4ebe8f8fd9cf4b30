import { ToolError } from "../../engine/errors.js";

/** The two regular expressions the walker searches with. */
export interface WalkerRegex {
	/** Tests one line and finds where the match starts. */
	line: RegExp;
	/** Tests a whole chunk of lines at once (multiline anchors), to skip chunks without a match cheaply. */
	chunk: RegExp;
}

const SPECIAL = /[.*+?^${}()|[\]\\/-]/g;

/**
 * Builds JavaScript regular expressions that behave like ripgrep's for everyday patterns. A
 * leading `(?i)` (Rust's inline flag) becomes the `i` flag. Unicode mode is tried first and
 * dropped when the pattern only works without it (e.g. an escaped `-` outside a class).
 */
export function buildWalkerRegex(options: { pattern: string; literal: boolean; caseSensitive: boolean }): WalkerRegex {
	let source = options.literal ? options.pattern.replace(SPECIAL, "\\$&") : options.pattern;
	let flags = options.caseSensitive ? "" : "i";
	if (!options.literal && source.startsWith("(?i)")) {
		source = source.slice(4);
		if (!flags.includes("i")) flags += "i";
	}
	let lastError: unknown;
	for (const unicode of ["u", ""]) {
		try {
			return { line: new RegExp(source, flags + unicode), chunk: new RegExp(source, `${flags}${unicode}m`) };
		} catch (error) {
			lastError = error;
		}
	}
	const reason = lastError instanceof Error ? lastError.message : String(lastError);
	throw new ToolError(
		`The pattern is not a valid regular expression: ${reason}\nFix the pattern, or set literal: true to search for the text as written.`,
	);
}
