/**
 * old_string escaped twice: a model that JSON-encoded its text once too often sends the two
 * characters `\n` where the file has a line break (and `\t`, `\"`, `\\` alike). Read as a
 * fallback only, after every other way to find old_string failed.
 */

const ESCAPE = /\\([nrt"'\\/])/g;
const MEANINGS: Record<string, string> = { n: "\n", r: "\r", t: "\t" };

/** `text` with one level of backslash escapes read, or undefined when it has none. */
export function unescapeOnce(text: string): string | undefined {
	if (!text.includes("\\")) return undefined;
	ESCAPE.lastIndex = 0;
	const result = text.replace(ESCAPE, (_, character: string) => MEANINGS[character] ?? character);
	return result === text ? undefined : result;
}
