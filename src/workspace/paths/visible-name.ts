// How a file name is shown to the model and in a terminal: a name may hold any byte but `/` and
// NUL, and one holding a newline would read as two entries, one holding ESC as a terminal command.
// A backslash is escaped too (`\\`): a name holding `\n` as two characters is then never shown
// like one holding a newline.

const NAMED_ESCAPES: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t", "\u001b": "\\e", "\\": "\\\\" };

/** True for what `visibleName` writes as escapes: C0 controls, DEL, C1 controls, the two Unicode line separators, and the backslash. */
function isEscaped(code: number): boolean {
	return code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029 || code === 0x5c;
}

function escapeOf(character: string): string {
	const code = character.charCodeAt(0);
	return (
		NAMED_ESCAPES[character] ?? (code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16)}`)
	);
}

/**
 * `name` (a file name or path) with its control characters written as escapes: `\n`, `\r`, `\t`,
 * `\e` for ESC, `\xNN` (or `\uNNNN`) for the others, and a backslash as `\\`, so it is shown on
 * one line, never moves a terminal's cursor or colours, and reads back as one name only (see
 * `nameFromVisible`). A name without such characters is returned as it is (the common case costs
 * one scan). The one escaping of names for every backend, local and remote.
 */
export function visibleName(name: string): string {
	let index = 0;
	while (index < name.length && !isEscaped(name.charCodeAt(index))) index++;
	if (index === name.length) return name;
	let shown = name.slice(0, index);
	for (; index < name.length; index++) {
		const character = name[index] as string;
		shown += isEscaped(character.charCodeAt(0)) ? escapeOf(character) : character;
	}
	return shown;
}

const NAMED_CHARACTERS: Record<string, string> = { n: "\n", r: "\r", t: "\t", e: "\u001b", "\\": "\\" };

/**
 * The name `shown` stands for when it is `visibleName`'s output holding escapes (a model gives a
 * name back as it was shown), else undefined: no backslash, a backslash not starting one of its
 * escapes, or an escape `visibleName` never writes (`\x2f` for `/`, `\x00`) mean `shown` is not such
 * a form, so no separator or dot-dot can come out of an escape.
 */
export function nameFromVisible(shown: string): string | undefined {
	if (!shown.includes("\\")) return undefined;
	let valid = true;
	const name = shown.replace(
		/\\(?:([nrte\\])|x([0-9a-f]{2})|u([0-9a-f]{4}))|\\/g,
		(sequence, named?: string, byte?: string, unit?: string) => {
			if (named !== undefined) return NAMED_CHARACTERS[named] as string;
			const code = Number.parseInt(byte ?? unit ?? "", 16);
			if (Number.isNaN(code) || code === 0 || !isEscaped(code) || (byte !== undefined && code > 0xff)) valid = false;
			return valid ? String.fromCharCode(code) : sequence;
		},
	);
	return valid ? name : undefined;
}
