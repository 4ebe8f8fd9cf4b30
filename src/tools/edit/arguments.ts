/**
 * Repairs the argument shapes models send to edit before validation: other tools' field names,
 * `edits` as a JSON string (also one with raw line breaks inside its strings), and a single edit object where an array belongs.
 */

const ALIASES: Record<string, readonly string[]> = {
	path: ["file_path", "filePath", "file", "filename"],
	old_string: ["oldText", "old_text", "oldString", "old_str", "old"],
	new_string: ["newText", "new_text", "newString", "new_str", "new"],
	replace_all: ["replaceAll", "replace_all_occurrences", "all"],
};

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Copies `source`, renaming aliased fields to their canonical names (a canonical field wins). */
function renameAliases(source: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
	const result: Record<string, unknown> = { ...source };
	for (const field of fields) {
		for (const alias of ALIASES[field] ?? []) {
			if (!(alias in result)) continue;
			if (result[field] === undefined) result[field] = result[alias];
			delete result[alias];
		}
	}
	return result;
}

const CONTROL_ESCAPES: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/**
 * `text` with raw control characters inside JSON strings escaped: a model that writes a JSON
 * string by hand often puts real line breaks and tabs in it, which JSON forbids. One linear pass
 * that tracks whether it is inside a string (and after a backslash).
 */
function escapeControlCharactersInStrings(text: string): string {
	let result = "";
	let copied = 0;
	let inString = false;
	for (let index = 0; index < text.length; index++) {
		const code = text.charCodeAt(index);
		if (!inString) {
			if (code === 34) inString = true;
		} else if (code === 92) {
			index++;
		} else if (code === 34) {
			inString = false;
		} else if (code < 0x20) {
			const character = text[index] as string;
			result += text.slice(copied, index) + (CONTROL_ESCAPES[character] ?? `\\u${code.toString(16).padStart(4, "0")}`);
			copied = index + 1;
		}
	}
	return copied === 0 ? text : result + text.slice(copied);
}

function parseJson(text: string): unknown {
	try {
		return JSON.parse(text);
	} catch {
		try {
			return JSON.parse(escapeControlCharactersInStrings(text));
		} catch {
			return text;
		}
	}
}

/** Edit's `prepareArguments`: returns a repaired copy; anything it cannot repair is left for validation to report. */
export function prepareEditArguments(args: unknown): unknown {
	if (!isRecord(args)) return args;
	const result = renameAliases(args, ["path", "old_string", "new_string", "replace_all"]);
	let edits = result.edits;
	if (typeof edits === "string") edits = parseJson(edits);
	if (isRecord(edits)) edits = [edits];
	if (Array.isArray(edits)) {
		edits = edits.map((item) => {
			const parsed = typeof item === "string" ? parseJson(item) : item;
			return isRecord(parsed) ? renameAliases(parsed, ["old_string", "new_string", "replace_all"]) : parsed;
		});
	}
	if (edits !== undefined) result.edits = edits;
	// Some models send `null` for the fields they do not use.
	for (const field of ["old_string", "new_string", "replace_all", "edits"]) {
		if (result[field] === null) delete result[field];
	}
	// Strict-schema callers fill the unused top-level pair with empty strings when they use edits.
	if (result.old_string === "" && result.new_string === "" && Array.isArray(result.edits) && result.edits.length > 0) {
		delete result.old_string;
		delete result.new_string;
		if (result.replace_all === false) delete result.replace_all;
	}
	return result;
}
