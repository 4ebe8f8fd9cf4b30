// How a file name is shown to the model and in a terminal: a name may hold any byte but `/` and
// NUL, and one holding a newline would read as two entries, one holding ESC as a terminal command.

const NAMED_ESCAPES: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t", "\u001b": "\\e" };

/** True for C0 controls, DEL, C1 controls and the two Unicode line separators. */
function isControl(code: number): boolean {
	return code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029;
}

function escapeOf(character: string): string {
	const code = character.charCodeAt(0);
	return (
		NAMED_ESCAPES[character] ?? (code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16)}`)
	);
}

/**
 * `name` (a file name or path) with its control characters written as escapes: `\n`, `\r`, `\t`,
 * `\e` for ESC, `\xNN` (or `\uNNNN`) for the others, so it is shown on one line and never moves a
 * terminal's cursor or colours. A name without control characters is returned as it is (the
 * common case costs one scan). The one escaping of names for every backend, local and remote.
 */
export function visibleName(name: string): string {
	let index = 0;
	while (index < name.length && !isControl(name.charCodeAt(index))) index++;
	if (index === name.length) return name;
	let shown = name.slice(0, index);
	for (; index < name.length; index++) {
		const character = name[index] as string;
		shown += isControl(character.charCodeAt(0)) ? escapeOf(character) : character;
	}
	return shown;
}
