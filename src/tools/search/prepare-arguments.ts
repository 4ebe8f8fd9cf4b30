import { joinGlobList } from "./glob-list.js";

/** Other names models use for a parameter, canonical name first. */
type Aliases = Record<string, readonly string[]>;

const GREP_ALIASES: Aliases = {
	pattern: ["regex", "query", "search"],
	path: ["directory", "dir", "folder", "file"],
	include: ["glob", "file_pattern", "include_pattern", "files"],
	exclude: ["exclude_pattern", "ignore"],
	literal: ["fixed_strings", "fixed"],
	context: ["context_lines", "-C"],
	limit: ["max_results", "head_limit", "max_count"],
};

const FIND_ALIASES: Aliases = {
	pattern: ["glob", "name", "query"],
	path: ["directory", "dir", "folder"],
	limit: ["max_results", "head_limit"],
};

/** Names that mean the opposite of `case_sensitive`. */
const CASE_INSENSITIVE = ["ignore_case", "case_insensitive", "-i"];

function rename(args: Record<string, unknown>, aliases: Aliases): Record<string, unknown> {
	const result = { ...args };
	for (const [canonical, names] of Object.entries(aliases)) {
		for (const name of names) {
			if (!(name in result)) continue;
			if (!(canonical in result)) result[canonical] = result[name];
			delete result[name];
		}
	}
	return result;
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Repairs grep arguments a model named after other tools (`glob`, `ignore_case`, `-C`, …); a
 * list of `include` or `exclude` globs (array or comma list) becomes one brace group.
 */
export function prepareGrepArguments(args: unknown): unknown {
	if (!isRecord(args)) return args;
	const result = rename(args, GREP_ALIASES);
	for (const name of ["include", "exclude"]) {
		if (name in result) result[name] = joinGlobList(result[name]);
	}
	caseSensitiveFromAliases(result);
	return result;
}

function caseSensitiveFromAliases(result: Record<string, unknown>): void {
	for (const name of CASE_INSENSITIVE) {
		if (!(name in result)) continue;
		const value = result[name];
		delete result[name];
		if (!("case_sensitive" in result) && (typeof value === "boolean" || value === "true" || value === "false")) {
			result.case_sensitive = !(value === true || value === "true");
		}
	}
}

/**
 * Repairs find arguments a model named after other tools (`glob`, `name`, `directory`, …); a
 * list of patterns (array or comma list) becomes one brace group.
 */
export function prepareFindArguments(args: unknown): unknown {
	if (!isRecord(args)) return args;
	const result = rename(args, FIND_ALIASES);
	if ("pattern" in result) result.pattern = joinGlobList(result.pattern);
	caseSensitiveFromAliases(result);
	return result;
}
