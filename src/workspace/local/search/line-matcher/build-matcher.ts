import { RE2JS } from "re2js";
import { ToolError } from "../../../../engine/index.js";
import { BacktrackingMatcher } from "./backtracking-matcher.js";
import { LinearMatcher } from "./linear-matcher.js";
import type { LineMatcher } from "./types.js";

/** What the built-in search is asked to match. */
export interface MatcherRequest {
	/** The regular expression, or the text itself when `literal`. */
	pattern: string;
	/** Search for `pattern` as written. */
	literal: boolean;
	/** Match case exactly. */
	caseSensitive: boolean;
}

/** `\uXXXX` and `\u{X…}` (JavaScript) as RE2 spells them (`\x{…}`), unless the backslash is itself escaped. */
const UNICODE_ESCAPE = /(?<!\\)((?:\\\\)*)\\u(?:\{([0-9a-fA-F]{1,6})\}|([0-9a-fA-F]{4}))/g;

function compileLinear(source: string, caseSensitive: boolean): LinearMatcher {
	const flags = RE2JS.LOOKBEHINDS | (caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE);
	return new LinearMatcher(RE2JS.compile(source, flags), RE2JS.compile(source, flags | RE2JS.MULTILINE));
}

/** The flags with which JavaScript compiles `source`, or the reason it cannot. */
function javascriptFlags(source: string, caseSensitive: boolean): { flags: string } | { reason: string } {
	const base = caseSensitive ? "" : "i";
	let reason = "";
	// Unicode mode first; without it when the pattern only works so (an escaped `-` outside a class).
	for (const flags of [`${base}u`, base]) {
		try {
			new RegExp(source, flags);
			return { flags };
		} catch (error) {
			reason ||= error instanceof Error ? error.message : String(error);
		}
	}
	return { reason };
}

/**
 * Builds the built-in search's matcher, with ripgrep's meaning for everyday patterns (a leading
 * `(?i)`, Rust's inline flag, makes the search ignore case). RE2's linear-time engine runs every
 * pattern it can express; one it cannot (look-ahead, back-references) runs on JavaScript's engine
 * in a worker thread with a time bound per piece (`BacktrackingMatcher`), which `signal` stops.
 */
export function buildLineMatcher(request: MatcherRequest, signal: AbortSignal): LineMatcher {
	if (request.literal) return compileLinear(RE2JS.quote(request.pattern), request.caseSensitive);
	let linearError: unknown;
	try {
		return compileLinear(request.pattern.replace(UNICODE_ESCAPE, "$1\\x{$2$3}"), request.caseSensitive);
	} catch (error) {
		linearError = error;
	}
	let source = request.pattern;
	let caseSensitive = request.caseSensitive;
	if (source.startsWith("(?i)")) {
		source = source.slice(4);
		caseSensitive = false;
	}
	const javascript = javascriptFlags(source, caseSensitive);
	if ("flags" in javascript) return new BacktrackingMatcher({ source, flags: javascript.flags, signal });
	const linearReason = linearError instanceof Error ? linearError.message : String(linearError);
	throw new ToolError(
		`The pattern is not a valid regular expression: ${javascript.reason} (${linearReason})\nFix the pattern, or set literal: true to search for the text as written.`,
	);
}
