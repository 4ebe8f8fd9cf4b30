import { isAscii, isUtf8 } from "node:buffer";
import { TextDecoder } from "node:util";
import { decodeLegacy } from "../../workspace/index.js";

const CARRIAGE_RETURN = 0x0d;

/** One line as `LineCollector.finish` decoded it. */
export interface FinishedLine {
	/** The line's text without its line break, cut with a marker when too long. */
	text: string;
	/** True when the text was cut. */
	cut: boolean;
	/** Why the line is not text (a NUL byte, bytes that are not UTF-8); undefined when it is. */
	problem: "nul-byte" | "invalid-utf8" | undefined;
	/** UTF-8 bytes of `text`, when known without counting (the line's own bytes, uncut); else undefined. */
	bytes?: number;
}

/**
 * `text` (of which `droppedUnits` more UTF-16 units were not decoded) cut to `maxLength` units with
 * a marker that counts what was cut, never between the halves of a surrogate pair; as it is when
 * nothing needs cutting.
 */
export function cutLine(text: string, maxLength: number, droppedUnits = 0): { text: string; cut: boolean } {
	if (text.length <= maxLength && droppedUnits === 0) return { text, cut: false };
	let end = Math.min(maxLength, text.length);
	const code = text.charCodeAt(end - 1);
	if (code >= 0xd800 && code <= 0xdbff) end--;
	const more = droppedUnits + text.length - end;
	return { text: `${text.slice(0, end)}… [line truncated, ${more} more characters]`, cut: true };
}

/** Length of `bytes` without an incomplete UTF-8 sequence at its end (where a cut fell inside a character). */
function completeLength(bytes: Uint8Array): number {
	let lead = bytes.length - 1;
	while (lead > 0 && bytes.length - lead < 4 && ((bytes[lead] ?? 0) & 0xc0) === 0x80) lead--;
	const byte = bytes[lead] ?? 0;
	const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
	return lead + needed > bytes.length ? Math.max(0, lead) : bytes.length;
}

/**
 * Collects the bytes of one line across chunks, keeping only as many as the longest line shown
 * needs, so a 100 MB line without a newline costs a counter, not 100 MB of memory.
 */
export class LineCollector {
	private readonly parts: Buffer[] = [];
	private keptBytes = 0;
	/** Set once the line outgrew `keepBytes`: the rest is only counted (decoded natively, then dropped). */
	private overflowing = false;
	/**
	 * Counts the units of a non-ASCII rest; made at the first one, since the first decoder of a process
	 * sets up its converter (milliseconds), and most long lines (minified code, data) are ASCII.
	 */
	private decoder: TextDecoder | undefined;
	private droppedUnits = 0;
	/** The decoder holds the start of a character split across chunks. */
	private pendingMultibyte = false;
	private lastByte = -1;

	/**
	 * @param keepBytes Bytes of a line kept for decoding; enough for the longest line shown.
	 * @param legacy The lines are single-byte legacy text (one character per byte), not UTF-8.
	 */
	constructor(
		private readonly keepBytes: number,
		private readonly legacy: boolean,
	) {}

	/** Adds bytes of the current line; `copy` when `bytes` is a view of a buffer about to be reused. */
	add(bytes: Buffer, copy: boolean): void {
		if (bytes.length === 0) return;
		this.lastByte = bytes[bytes.length - 1] ?? -1;
		let rest = bytes;
		if (!this.overflowing) {
			const room = this.keepBytes - this.keptBytes;
			// The kept part ends on a character boundary, so the counted rest starts on one.
			const kept = room >= bytes.length ? bytes : bytes.subarray(0, completeLength(bytes.subarray(0, room)));
			if (kept.length > 0) {
				this.parts.push(copy ? Buffer.from(kept) : kept);
				this.keptBytes += kept.length;
			}
			if (kept.length === bytes.length) return;
			this.overflowing = true;
			rest = bytes.subarray(kept.length);
		}
		// ASCII (the common case, and NUL-filled holes) needs no decoding: one unit per byte.
		const pending = this.pendingMultibyte;
		if (this.legacy || (!pending && isAscii(rest))) this.droppedUnits += rest.length;
		else {
			this.decoder ??= new TextDecoder();
			this.droppedUnits += this.decoder.decode(rest, { stream: true }).length;
			this.pendingMultibyte = completeLength(rest) !== rest.length;
		}
	}

	/** Decodes the line (without its `\r\n`/`\n`), cut to `maxLength` units with a marker. */
	finish(maxLength: number): FinishedLine {
		let bytes = this.parts.length === 1 ? (this.parts[0] as Buffer) : Buffer.concat(this.parts);
		let extraUnits = 0;
		if (this.overflowing) {
			const pendingUnits = this.decoder?.decode().length ?? 0;
			extraUnits = this.droppedUnits + pendingUnits - (this.lastByte === CARRIAGE_RETURN ? 1 : 0);
		} else if (bytes[bytes.length - 1] === CARRIAGE_RETURN) {
			bytes = bytes.subarray(0, bytes.length - 1);
		}
		const problem = bytes.includes(0) ? "nul-byte" : this.legacy || isUtf8(bytes) ? undefined : "invalid-utf8";
		const decoded = problem ? "" : this.legacy ? decodeLegacy(bytes) : bytes.toString("utf8");
		const { text, cut } = cutLine(decoded, maxLength, extraUnits);
		this.parts.length = 0;
		this.keptBytes = 0;
		this.overflowing = false;
		this.droppedUnits = 0;
		this.pendingMultibyte = false;
		this.lastByte = -1;
		// Uncut UTF-8 text is its own bytes: the page's budget needs no count of them.
		return { text, cut, problem, ...(cut || this.legacy ? {} : { bytes: bytes.length }) };
	}
}
