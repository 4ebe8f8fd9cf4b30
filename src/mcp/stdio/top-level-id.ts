/** A JSON-RPC request id: a number or a string. */
export type JsonRpcId = string | number;

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;

/** An id longer than this (as JSON text) is not kept: a real client's ids are short. */
const MAX_ID_TEXT_BYTES = 256;

/**
 * Finds the top-level `"id"` of a JSON object fed to it in pieces, holding only a few bytes, so a
 * message too large to keep can still be answered under its own id. Clients put `id` anywhere:
 * the MCP SDK writes it after `params`, at the very end of a large call.
 *
 * Only the top-level object's keys count; an `id` inside `params` is skipped. A key written with
 * escapes (`"i\u0064"`) is not recognised, and the scan gives up quietly on text that is not an
 * object: the answer then goes to id `null`, as JSON-RPC says for an unknown id.
 */
export class TopLevelIdScanner {
	private depth = 0;
	private inString = false;
	private escaped = false;
	/** At depth 1: what comes next, a key, the colon after it, or its value. */
	private expect: "key" | "colon" | "value" = "key";
	/** While a top-level key is read: its length so far, and whether it still spells "id". */
	private readingKey = false;
	private keyLength = 0;
	private keyMatches = false;
	private lastKeyIsId = false;
	/** The raw text of the top-level id's value while it is being read. */
	private idText: number[] | undefined;
	private found: JsonRpcId | undefined;
	private done = false;

	/** Reads the next piece of the message. */
	feed(bytes: Uint8Array): void {
		for (let index = 0; index < bytes.length && !this.done; index++) {
			const byte = bytes[index] as number;
			if (this.idText && this.idText.length >= MAX_ID_TEXT_BYTES) this.idText = undefined;
			this.idText?.push(byte);
			if (this.inString) this.readStringByte(byte);
			else this.readStructureByte(byte);
		}
	}

	/** The top-level id seen so far, if any. */
	get id(): JsonRpcId | undefined {
		return this.found;
	}

	private readStringByte(byte: number): void {
		if (this.escaped) {
			this.escaped = false;
			this.keyMatches = false;
		} else if (byte === BACKSLASH) {
			this.escaped = true;
		} else if (byte === QUOTE) {
			this.inString = false;
			if (this.readingKey) {
				this.readingKey = false;
				this.lastKeyIsId = this.keyMatches && this.keyLength === 2;
				this.expect = "colon";
			}
		} else if (this.readingKey) {
			// "id" is the bytes 0x69 0x64.
			this.keyMatches &&= (this.keyLength === 0 && byte === 0x69) || (this.keyLength === 1 && byte === 0x64);
			this.keyLength++;
		}
	}

	private readStructureByte(byte: number): void {
		if (byte === QUOTE) {
			this.inString = true;
			if (this.depth === 1 && this.expect === "key") {
				this.readingKey = true;
				this.keyLength = 0;
				this.keyMatches = true;
			}
			return;
		}
		if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
			if (this.depth === 0 && byte !== OPEN_BRACE) this.done = true;
			this.depth++;
			return;
		}
		if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
			this.depth--;
			if (this.depth === 1) return;
			if (this.depth === 0) {
				this.endValue(1);
				this.done = true;
			}
			return;
		}
		if (this.depth !== 1) return;
		if (byte === COLON && this.expect === "colon") {
			this.expect = "value";
			if (this.lastKeyIsId) this.idText = [];
		} else if (byte === COMMA) {
			this.endValue(1);
			this.expect = "key";
		}
	}

	/** Ends the id's value: the bytes read, less the delimiter just pushed. */
	private endValue(delimiterBytes: number): void {
		if (!this.idText) return;
		const text = Buffer.from(this.idText.slice(0, this.idText.length - delimiterBytes))
			.toString("utf8")
			.trim();
		this.idText = undefined;
		this.lastKeyIsId = false;
		try {
			const value: unknown = JSON.parse(text);
			if (typeof value === "string" || (typeof value === "number" && Number.isFinite(value))) this.found = value;
		} catch {
			// Not a valid id: the answer goes to id null.
		}
	}
}
