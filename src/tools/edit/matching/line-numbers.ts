/**
 * The line-number prefixes read puts before each line (`cat -n` style: a right-aligned number and
 * a tab), which models sometimes copy into old_string and new_string.
 */

// The arrow form is what some other agents' read tools print; models trained on them copy it too.
const PREFIX = /^ *(\d+)(?:\t|→)/;

/** old_string with its line-number prefixes removed, and the line number the first one named. */
export interface StrippedLineNumbers {
	/** The text without prefixes. */
	text: string;
	/** The line number in the first prefix. */
	firstLine: number;
}

function splitLines(text: string): { lines: string[]; finalNewline: boolean } {
	const finalNewline = text.endsWith("\n");
	const lines = (finalNewline ? text.slice(0, -1) : text).split("\n");
	return { lines, finalNewline };
}

/**
 * Removes the prefixes when every line of `text` carries one and the numbers count up by one, as
 * read printed them; otherwise returns undefined (the text is then taken as it is).
 */
export function stripLineNumbers(text: string): StrippedLineNumbers | undefined {
	const { lines, finalNewline } = splitLines(text);
	let firstLine = 0;
	const stripped: string[] = [];
	for (const [index, line] of lines.entries()) {
		const match = PREFIX.exec(line);
		if (!match) return undefined;
		const number = Number(match[1]);
		if (index === 0) firstLine = number;
		else if (number !== firstLine + index) return undefined;
		stripped.push(line.slice(match[0].length));
	}
	return { text: stripped.join("\n") + (finalNewline ? "\n" : ""), firstLine };
}

/**
 * new_string without prefixes when every non-empty line carries one (its numbers need not count
 * up: lines were added or removed); otherwise the text unchanged.
 */
export function stripLineNumbersLoosely(text: string): string {
	const { lines, finalNewline } = splitLines(text);
	if (!lines.every((line) => line === "" || PREFIX.test(line))) return text;
	if (lines.every((line) => line === "")) return text;
	const stripped = lines.map((line) => line.replace(PREFIX, ""));
	return stripped.join("\n") + (finalNewline ? "\n" : "");
}
