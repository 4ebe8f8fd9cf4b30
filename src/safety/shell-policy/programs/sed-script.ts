/**
 * Reads a sed script far enough to tell whether it runs commands (`e`, the `e` flag of `s`) and
 * which files it writes (`w`, `W`, the `w` flag of `s`). Whatever it cannot read counts as
 * running commands, so that an unusual spelling never passes for a harmless one.
 */

/** What a sed script does beyond printing. */
export interface SedScriptEffects {
	/** It may run shell commands (`e`), or the reader could not follow it. */
	runs: boolean;
	/** Files it writes (`w file`, `s/a/b/w file`); `/dev/stdout` and `/dev/stderr` included. */
	writes: string[];
}

/** Commands that take no argument, or only a number (`q5`, `l 40`). */
const simpleCommands = new Set([..."=dDgGhHlLnNpPqQxzF"]);

interface Cursor {
	text: string;
	index: number;
}

/** The index past a `c…c`-delimited part starting after its opening delimiter; -1 when unterminated. */
function skipDelimited(cursor: Cursor, delimiter: string): boolean {
	const { text } = cursor;
	while (cursor.index < text.length) {
		const char = text[cursor.index];
		if (char === "\\") {
			cursor.index += 2;
			continue;
		}
		if (char === "\n" && delimiter !== "\n") return false;
		cursor.index++;
		if (char === delimiter) return true;
	}
	return false;
}

/** The rest of the line (a file name, a label, a text), trimmed at its start. */
function restOfLine(cursor: Cursor): string {
	const end = cursor.text.indexOf("\n", cursor.index);
	const stop = end === -1 ? cursor.text.length : end;
	const rest = cursor.text.slice(cursor.index, stop).replace(/^\s+/, "");
	cursor.index = stop;
	return rest;
}

/** Skips an address (`1`, `$`, `/re/`, `\cREc`, `first~step`, `addr,+N`) and a `!`. */
function skipAddress(cursor: Cursor): boolean {
	const { text } = cursor;
	for (let parts = 0; parts < 2; parts++) {
		const char = text[cursor.index];
		if (char === "/") {
			cursor.index++;
			if (!skipDelimited(cursor, "/")) return false;
			while (/[IM]/.test(text[cursor.index] ?? "")) cursor.index++;
		} else if (char === "\\") {
			const delimiter = text[cursor.index + 1] ?? "";
			cursor.index += 2;
			if (!skipDelimited(cursor, delimiter)) return false;
		} else {
			while (/[0-9$~+]/.test(text[cursor.index] ?? "")) cursor.index++;
		}
		if (text[cursor.index] !== ",") break;
		cursor.index++;
	}
	while (/[\s!]/.test(text[cursor.index] ?? "")) cursor.index++;
	return true;
}

/** Reads one command at the cursor into `effects`; false when the script cannot be followed. */
function readCommand(cursor: Cursor, effects: SedScriptEffects): boolean {
	const { text } = cursor;
	const command = text[cursor.index] ?? "";
	cursor.index++;
	if (command === "{" || command === "}") return true;
	if (command === "#") {
		restOfLine(cursor);
		return true;
	}
	if (command === "e") {
		effects.runs = true;
		restOfLine(cursor);
		return true;
	}
	if (command === "w" || command === "W") {
		effects.writes.push(restOfLine(cursor));
		return true;
	}
	if ("aicrRbtTv:".includes(command)) {
		// A text, a file read, or a label: up to the end of the line (labels also end at ;).
		if ("btTv:".includes(command)) {
			while (cursor.index < text.length && !/[;\n}]/.test(text[cursor.index] as string)) cursor.index++;
		} else restOfLine(cursor);
		return true;
	}
	if (command === "s" || command === "y") {
		const delimiter = text[cursor.index] ?? "";
		if (delimiter === "" || delimiter === "\\" || delimiter === "\n") return false;
		cursor.index++;
		if (!skipDelimited(cursor, delimiter) || !skipDelimited(cursor, delimiter)) return false;
		if (command === "y") return true;
		while (cursor.index < text.length) {
			const flag = text[cursor.index] as string;
			if (flag === "e") effects.runs = true;
			if (flag === "w") {
				cursor.index++;
				effects.writes.push(restOfLine(cursor));
				return true;
			}
			if (!/[gpiImM0-9e]/.test(flag)) break;
			cursor.index++;
		}
		return true;
	}
	if (simpleCommands.has(command)) {
		while (/[0-9 ]/.test(text[cursor.index] ?? "") && text[cursor.index] !== "\n") cursor.index++;
		return true;
	}
	return false;
}

/** Reads a sed script: the commands it may run and the files it writes. */
export function readSedScript(script: string): SedScriptEffects {
	const effects: SedScriptEffects = { runs: false, writes: [] };
	const cursor: Cursor = { text: script, index: 0 };
	while (cursor.index < script.length) {
		const char = script[cursor.index] as string;
		if (/[\s;]/.test(char)) {
			cursor.index++;
			continue;
		}
		if (!skipAddress(cursor) || cursor.index >= script.length || !readCommand(cursor, effects)) {
			effects.runs = true;
			return effects;
		}
	}
	return effects;
}
