// Finds where a value sits in raw JSON text, so one value can be replaced and every other byte of
// the file (key order, indentation, escapes, trailing newline) stays exactly as it was.

/** A half-open span `[start, end)` of the raw text. */
export interface TextSpan {
	start: number;
	end: number;
}

function malformed(at: number): Error {
	return new Error(`malformed JSON near character ${at}`);
}

function skipSpace(text: string, at: number): number {
	let index = at;
	while (index < text.length && " \t\r\n".includes(text.charAt(index))) index++;
	return index;
}

function stringEnd(text: string, at: number): number {
	if (text.charAt(at) !== '"') throw malformed(at);
	for (let index = at + 1; index < text.length; index++) {
		const character = text.charAt(index);
		if (character === "\\") index++;
		else if (character === '"') return index + 1;
	}
	throw malformed(at);
}

/** The end of the JSON value that starts at `at` (no whitespace skipped before it). */
function valueEnd(text: string, at: number): number {
	const first = text.charAt(at);
	if (first === '"') return stringEnd(text, at);
	if (first !== "{" && first !== "[") {
		const match = /^(?:true|false|null|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(at, at + 64));
		if (!match) throw malformed(at);
		return at + match[0].length;
	}
	let depth = 0;
	for (let index = at; index < text.length; index++) {
		const character = text.charAt(index);
		if (character === '"') index = stringEnd(text, index) - 1;
		else if (character === "{" || character === "[") depth++;
		else if (character === "}" || character === "]") {
			depth--;
			if (depth === 0) return index + 1;
		}
	}
	throw malformed(at);
}

/** Spans of the elements of the array at `at`. */
export function arrayElements(text: string, at: number): TextSpan[] {
	if (text.charAt(at) !== "[") throw malformed(at);
	const spans: TextSpan[] = [];
	let index = skipSpace(text, at + 1);
	if (text.charAt(index) === "]") return spans;
	for (;;) {
		const end = valueEnd(text, index);
		spans.push({ start: index, end });
		index = skipSpace(text, end);
		if (text.charAt(index) === "]") return spans;
		if (text.charAt(index) !== ",") throw malformed(index);
		index = skipSpace(text, index + 1);
	}
}

/** The span of the value of `key` in the object at `at`, or undefined when it has no such key. */
export function memberValue(text: string, at: number, key: string): TextSpan | undefined {
	if (text.charAt(at) !== "{") throw malformed(at);
	let index = skipSpace(text, at + 1);
	if (text.charAt(index) === "}") return undefined;
	for (;;) {
		const keyEnd = stringEnd(text, index);
		const name = JSON.parse(text.slice(index, keyEnd)) as string;
		index = skipSpace(text, keyEnd);
		if (text.charAt(index) !== ":") throw malformed(index);
		const start = skipSpace(text, index + 1);
		const end = valueEnd(text, start);
		if (name === key) return { start, end };
		index = skipSpace(text, end);
		if (text.charAt(index) === "}") return undefined;
		if (text.charAt(index) !== ",") throw malformed(index);
		index = skipSpace(text, index + 1);
	}
}

/** Where the document's top-level value starts (after a byte-order mark and whitespace). */
export function rootStart(text: string): number {
	return skipSpace(text, text.charCodeAt(0) === 0xfeff ? 1 : 0);
}
