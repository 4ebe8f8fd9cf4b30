/** Escape sequences (arrow and function keys, and other terminal reports): keys that answer nothing. */
const escapeSequence = /\x1b(\[[0-9;?]*[ -/]*[@-~]|O.|.)?/g;

/**
 * The answer a chunk of raw keyboard input gives to a one-key question, or undefined when it
 * gives none: a letter of `letters` (either case), or `no` for `n`, Esc, Ctrl-C and Ctrl-D.
 */
export function keyAnswer<Answer extends string>(
	chunk: Buffer | string,
	letters: Readonly<Record<string, Answer>>,
	no: Answer,
): Answer | undefined {
	const text = chunk.toString();
	if (text === "\x1b") return no;
	for (const key of text.replace(escapeSequence, "")) {
		const lower = key.toLowerCase();
		if (Object.hasOwn(letters, lower)) return letters[lower];
		if (lower === "n" || key === "\x03" || key === "\x04") return no;
	}
	return undefined;
}
