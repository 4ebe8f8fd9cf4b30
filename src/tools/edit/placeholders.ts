/**
 * Omission placeholders: a model that abbreviates new_string with `// ... existing code ...` in
 * place of the code it means to keep. edit writes new_string literally, so that code would be lost.
 */

// A whole line that is one comment, in the comment styles of common languages.
const COMMENT_LINE = /^(?:\/\/+|#+|--|;+|\/\*+|\{\s*\/\*+|<!--)\s*(.*?)\s*(?:\*+\/\s*\}?|-->)?$/;
// What such a comment says when it stands for omitted code.
const OMISSION =
	/^(?:\.{2,}|…)$|\b(?:rest of (?:the )?(?:code|file|functions?|methods?|class(?:es)?|components?|implementation|body)|existing (?:code|logic|implementation|methods|imports)|(?:code|lines|content|implementation) (?:omitted|unchanged|remains?|elided)|(?:remains?|stays?|kept) (?:the same|unchanged)|unchanged|same as before|(?:other|remaining) (?:code|methods|functions|cases|properties|lines))\b/i;

const MAX_PLACEHOLDER_LENGTH = 120;

/** The text of `line` when it is a comment standing for omitted code, else undefined. */
function placeholderOf(line: string): string | undefined {
	const trimmed = line.trim();
	// Placeholders are short; a long line is code (and the regexes stay cheap).
	if (trimmed.length > MAX_PLACEHOLDER_LENGTH) return undefined;
	const comment = COMMENT_LINE.exec(trimmed);
	if (!comment) return undefined;
	const body = (comment[1] ?? "").replace(/^[.…\s]+|[.…\s]+$/g, "");
	const dotted = /^(?:\.{2,}|…)|(?:\.{2,}|…)$/.test(comment[1] ?? "");
	if (body === "") return dotted ? trimmed : undefined;
	return OMISSION.test(body) ? trimmed : undefined;
}

function contentLines(text: string): string[] {
	return text
		.split("\n")
		.map((line) => line.trim())
		.filter((line) => line !== "");
}

/**
 * The placeholder line new_string puts where old_string had code, or undefined. A placeholder
 * old_string has too (the file holds it) is fine, and so is one that replaces nothing (every line
 * of old_string is still in new_string).
 */
export function omissionPlaceholder(oldString: string, newString: string): string | undefined {
	const oldLines = contentLines(oldString);
	const kept = new Set(contentLines(newString));
	if (oldLines.every((line) => kept.has(line))) return undefined;
	const had = new Set(oldLines);
	for (const line of contentLines(newString)) {
		if (had.has(line)) continue;
		const placeholder = placeholderOf(line);
		if (placeholder) return placeholder;
	}
	return undefined;
}
