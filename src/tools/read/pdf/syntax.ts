// Just enough of PDF's object syntax to read a stream's dictionary the way pdf.js will: names with
// #xx escapes, nested dictionaries and arrays, strings (which may hold any bracket), comments and
// indirect references. Bounded: a value longer than MAX_VALUE_BYTES or nested deeper than
// MAX_DEPTH is not read (the caller then cannot bound the stream and refuses it).

/** A PDF value, as far as the stream check needs it; anything else is `other`. */
export type PdfValue =
	| { kind: "dictionary"; entries: Map<string, PdfValue> }
	| { kind: "array"; items: PdfValue[] }
	| { kind: "name"; name: string }
	| { kind: "number"; value: number }
	| { kind: "reference"; object: number }
	| { kind: "other" };

/** A value read, and where the text after it starts. */
export interface Parsed {
	value: PdfValue;
	end: number;
}

const MAX_VALUE_BYTES = 1024 * 1024;
const MAX_DEPTH = 64;
const OTHER: PdfValue = { kind: "other" };

function isSpace(byte: number | undefined): boolean {
	return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09 || byte === 0x0c || byte === 0x00;
}

function isDelimiter(byte: number | undefined): boolean {
	// ( ) < > [ ] { } / %
	return byte === undefined || isSpace(byte) || "()<>[]{}/%".includes(String.fromCharCode(byte));
}

/** The position of the next token at or after `at`: whitespace and comments skipped. */
export function skipSpace(data: Buffer, at: number): number {
	let position = at;
	while (position < data.length) {
		const byte = data[position];
		if (isSpace(byte)) position++;
		else if (byte === 0x25) {
			while (position < data.length && data[position] !== 0x0a && data[position] !== 0x0d) position++;
		} else break;
	}
	return position;
}

/** End of a regular token (a number, keyword or name body) starting at `at`. */
function tokenEnd(data: Buffer, at: number): number {
	let position = at;
	while (position < data.length && !isDelimiter(data[position])) position++;
	return position;
}

/** A name's text with its #xx escapes decoded (pdf.js reads `/Fl#61teDecode` as FlateDecode). */
function nameAt(data: Buffer, at: number): Parsed {
	const end = tokenEnd(data, at + 1);
	const raw = data.toString("latin1", at + 1, end);
	const name = raw.replace(/#([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
	return { value: { kind: "name", name }, end };
}

/** End of a literal string `( … )` at `at`: balanced parentheses, backslash escapes. */
function literalStringEnd(data: Buffer, at: number): number {
	let depth = 0;
	for (let position = at; position < data.length; position++) {
		const byte = data[position];
		if (byte === 0x5c) position++;
		else if (byte === 0x28) depth++;
		else if (byte === 0x29 && --depth === 0) return position + 1;
	}
	return data.length;
}

/**
 * Reads one value at `at` (after skipping whitespace); `number number R` is a reference.
 * Returns undefined when the value is too long or too deep to read within the bounds.
 */
export function parseValue(data: Buffer, at: number, depth = 0, limit = at + MAX_VALUE_BYTES): Parsed | undefined {
	const start = skipSpace(data, at);
	if (depth > MAX_DEPTH || start >= Math.min(limit, data.length)) return undefined;
	const byte = data[start];
	if (byte === 0x2f) return nameAt(data, start);
	if (byte === 0x28) return { value: OTHER, end: literalStringEnd(data, start) };
	if (byte === 0x3c && data[start + 1] === 0x3c) return parseDictionary(data, start + 2, depth, limit);
	if (byte === 0x3c) {
		const close = data.indexOf(0x3e, start);
		return { value: OTHER, end: close === -1 ? data.length : close + 1 };
	}
	if (byte === 0x5b) {
		const items: PdfValue[] = [];
		let position = start + 1;
		for (;;) {
			position = skipSpace(data, position);
			if (position >= limit || position >= data.length) return undefined;
			if (data[position] === 0x5d) return { value: { kind: "array", items }, end: position + 1 };
			const item = parseValue(data, position, depth + 1, limit);
			if (item === undefined) return undefined;
			items.push(item.value);
			position = item.end;
		}
	}
	const end = Math.max(tokenEnd(data, start), start + 1);
	const text = data.toString("latin1", start, end);
	if (!/^[+-]?(\d+\.?\d*|\.\d+)$/.test(text)) return { value: OTHER, end };
	const value = Number(text);
	// `12 0 R` is a reference to object 12.
	const generation = skipSpace(data, end);
	const generationEnd = tokenEnd(data, generation);
	const keyword = skipSpace(data, generationEnd);
	if (
		/^\d+$/.test(text) &&
		/^\d+$/.test(data.toString("latin1", generation, generationEnd)) &&
		data[keyword] === 0x52 &&
		isDelimiter(data[keyword + 1])
	) {
		return { value: { kind: "reference", object: value }, end: keyword + 1 };
	}
	return { value: { kind: "number", value }, end };
}

function parseDictionary(data: Buffer, at: number, depth: number, limit: number): Parsed | undefined {
	const entries = new Map<string, PdfValue>();
	let position = at;
	for (;;) {
		position = skipSpace(data, position);
		if (position >= limit || position >= data.length) return undefined;
		if (data[position] === 0x3e && data[position + 1] === 0x3e) {
			return { value: { kind: "dictionary", entries }, end: position + 2 };
		}
		if (data[position] !== 0x2f) {
			// Not a key: pdf.js skips such a token too; reading on keeps the two in step.
			const skipped = parseValue(data, position, depth + 1, limit);
			if (skipped === undefined) return undefined;
			position = skipped.end;
			continue;
		}
		const key = nameAt(data, position);
		const value = parseValue(data, key.end, depth + 1, limit);
		if (value === undefined) return undefined;
		// pdf.js keeps the first of two equal keys.
		const name = (key.value as { name: string }).name;
		if (!entries.has(name)) entries.set(name, value.value);
		position = value.end;
	}
}

/** One `N G obj` header: the object's number and where its body starts. */
export interface ObjectHeader {
	object: number;
	body: number;
}

/** Every `N G obj` header of the file, in file order (an object updated later appears again). */
export function objectHeaders(data: Buffer): ObjectHeader[] {
	const headers: ObjectHeader[] = [];
	const keyword = Buffer.from("obj", "latin1");
	for (let at = data.indexOf(keyword); at !== -1; at = data.indexOf(keyword, at + 3)) {
		if (at < 4 || !isDelimiter(data[at + 3])) continue;
		// Read back over "N G " before the keyword ("endobj" has letters there, so it never matches).
		const head = data.toString("latin1", Math.max(0, at - 24), at);
		const match = /(?:^|[^0-9])(\d{1,10})[\s\0]+(\d{1,5})[\s\0]*$/.exec(head);
		if (match?.[1] !== undefined) headers.push({ object: Number(match[1]), body: at + 3 });
	}
	return headers;
}
