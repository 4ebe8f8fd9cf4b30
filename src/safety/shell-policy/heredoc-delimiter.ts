/**
 * Where bash ends a heredoc. Its delimiter is the word after `<<` with its quotes removed, every
 * kind of quote and any part of the word (`E"O"F`, `E\OF`, `E$''OF` all end at `EOF`); the grammar
 * removes them only from a word quoted whole, and else waits for a line spelling the word as
 * written. The lines between are commands to bash and heredoc text to the grammar, which would hide
 * them from the rules: such a heredoc is not plain.
 */

/** The delimiter bash takes from `word`, or undefined for one whose quotes this does not remove (`$'\n'`). */
export function heredocDelimiter(word: string): string | undefined {
	let delimiter = "";
	for (let at = 0; at < word.length; at++) {
		const char = word[at] as string;
		if (char === "\\") {
			delimiter += word[++at] ?? "";
			continue;
		}
		const dollarQuote = char === "$" && (word[at + 1] === "'" || word[at + 1] === '"');
		const quote = dollarQuote ? (word[++at] as string) : char;
		if (quote !== "'" && quote !== '"') {
			delimiter += char;
			continue;
		}
		const end = word.indexOf(quote, at + 1);
		if (end === -1) return undefined;
		const inner = word.slice(at + 1, end);
		// Escapes inside quotes (`"a\"b"`, `$'\x41'`) are left to the parser's reading: not plain.
		if (inner.includes("\\")) return undefined;
		delimiter += inner;
		at = end;
	}
	return delimiter;
}

/**
 * True when bash and the grammar end the heredoc at the same line: the grammar's end is bash's
 * delimiter, and no line of the body the grammar read (tabs stripped for `<<-`) is that delimiter.
 */
export function sameHeredocEnd(start: string, end: string | undefined, body: string, stripsTabs: boolean): boolean {
	const delimiter = heredocDelimiter(start);
	if (delimiter === undefined || (end !== undefined && end !== delimiter)) return false;
	return !body.split("\n").some((line) => (stripsTabs ? line.replace(/^\t+/, "") : line) === delimiter);
}
