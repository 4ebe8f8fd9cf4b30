/**
 * Follows JSON text as it streams in, keeping the scanner state between chunks, so that each
 * character is scanned once however often the value is read. `value()` parses as much of the
 * text as is complete.
 */
export class PartialJsonScanner {
	private text = "";
	private readonly stack: ("{" | "[")[] = [];
	private inString = false;
	private escaped = false;
	private stringIsKey = false;
	private expectKey = false;
	private primitiveStart = -1;
	private safe: { end: number; closers: string } | undefined;

	/** All text received so far. */
	get received(): string {
		return this.text;
	}

	/** Adds a chunk of JSON text. */
	push(chunk: string): void {
		const offset = this.text.length;
		this.text += chunk;
		// Scan the chunk, not the whole text: touching the concatenated text would flatten it each time.
		this.scan(chunk, offset);
	}

	/**
	 * The object so far: `{"path": "src/a.ts", "content": "hel` gives `{ path: "src/a.ts",
	 * content: "hel" }`. Incomplete keys, literals and escapes are dropped. `{}` when nothing
	 * usable parsed or the value is not an object. Never throws.
	 */
	value(): Record<string, unknown> {
		// While a container or string is open the text cannot parse as is; skip the attempt.
		if (this.stack.length === 0 && !this.inString) {
			const complete = tryParseObject(this.text);
			if (complete) return complete;
		}
		const closers = this.closers();
		const candidates: string[] = [];
		if (this.inString && !this.stringIsKey) {
			const body = this.escaped ? this.text.slice(0, -1) : this.text;
			candidates.push(`${body.replace(/\\u[0-9a-fA-F]{0,3}$/, "")}"${closers}`);
		}
		if (!this.inString && this.primitiveStart >= 0) candidates.push(this.text + closers);
		if (this.safe) candidates.push(this.text.slice(0, this.safe.end) + this.safe.closers);
		for (const candidate of candidates) {
			const parsed = tryParseObject(candidate);
			if (parsed) return parsed;
		}
		return {};
	}

	private closers(): string {
		let closers = "";
		for (let index = this.stack.length - 1; index >= 0; index--) closers += this.stack[index] === "{" ? "}" : "]";
		return closers;
	}

	private markSafe(end: number): void {
		this.safe = { end, closers: this.closers() };
	}

	private endPrimitive(end: number): void {
		if (this.primitiveStart >= 0) this.markSafe(end);
		this.primitiveStart = -1;
	}

	private scan(text: string, offset: number): void {
		const specials = /["\\]/g;
		let index = 0;
		while (index < text.length) {
			if (this.inString) {
				if (this.escaped) {
					this.escaped = false;
					index++;
					continue;
				}
				// Jump over ordinary string characters: long strings (file contents) dominate.
				specials.lastIndex = index;
				const match = specials.exec(text);
				if (!match) return;
				index = match.index;
				if (text[index] === "\\") this.escaped = true;
				else {
					this.inString = false;
					if (!this.stringIsKey) this.markSafe(offset + index + 1);
				}
				index++;
				continue;
			}
			const char = text[index];
			switch (char) {
				case '"':
					this.endPrimitive(offset + index);
					this.inString = true;
					this.stringIsKey = this.stack.at(-1) === "{" && this.expectKey;
					this.expectKey = false;
					break;
				case "{":
				case "[":
					this.endPrimitive(offset + index);
					this.stack.push(char);
					this.expectKey = char === "{";
					this.markSafe(offset + index + 1);
					break;
				case "}":
				case "]":
					this.endPrimitive(offset + index);
					this.stack.pop();
					this.expectKey = false;
					this.markSafe(offset + index + 1);
					break;
				case ":":
					this.endPrimitive(offset + index);
					this.expectKey = false;
					break;
				case ",":
					this.endPrimitive(offset + index);
					this.expectKey = this.stack.at(-1) === "{";
					break;
				case " ":
				case "\n":
				case "\r":
				case "\t":
					this.endPrimitive(offset + index);
					break;
				default:
					if (this.primitiveStart < 0) this.primitiveStart = offset + index;
			}
			index++;
		}
	}
}

/**
 * Parses the JSON object a model is still streaming (tool-call arguments) as far as it goes.
 * See `PartialJsonScanner.value`. Never throws.
 */
export function parsePartialJson(text: string): Record<string, unknown> {
	const scanner = new PartialJsonScanner();
	scanner.push(text);
	return scanner.value();
}

function tryParseObject(text: string): Record<string, unknown> | undefined {
	try {
		const value: unknown = JSON.parse(text);
		if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
	} catch {
		// Incomplete: the caller tries a shorter candidate.
	}
	return undefined;
}

/**
 * Parses the final arguments of a tool call. Returns the object, or — for malformed JSON — the
 * raw string, which the engine reports to the model as invalid arguments (echoing what it sent).
 */
export function parseToolArguments(text: string): Record<string, unknown> {
	if (text.trim() === "") return {};
	const parsed = tryParseObject(text);
	// The engine's validation turns a string into an error result that shows the model its JSON.
	return parsed ?? (text as unknown as Record<string, unknown>);
}
