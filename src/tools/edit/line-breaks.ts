/**
 * Counting line breaks in UTF-8 bytes four at a time (SWAR): a large file's line numbers and
 * line-ending style cost one quick pass, not one native call per line.
 */

/** Line feeds, and how many of them follow a carriage return. */
export interface LineBreakCount {
	lineFeeds: number;
	crlf: number;
}

// Word-wise reading assumes little-endian byte order (every platform Node supports in practice).
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** A mask with bit 7 of every byte of `word` that equals `byte` (exact: no carries between bytes). */
function matchingBytes(word: number, pattern: number): number {
	const x = word ^ pattern;
	return ~(((x & 0x7f7f7f7f) + 0x7f7f7f7f) | x) & 0x80808080;
}

/** Number of set flags in a `matchingBytes` mask. */
function flagCount(mask: number): number {
	return Math.imul(mask >>> 7, 0x01010101) >>> 24;
}

/** Counts `\n` and `\r\n` in `bytes[from, to)`. */
export function countLineBreaks(bytes: Uint8Array, from: number, to: number): LineBreakCount {
	let lineFeeds = 0;
	let crlf = 0;
	let index = Math.max(0, from);
	const end = Math.min(to, bytes.length);
	let previousIsCr = index > 0 && bytes[index - 1] === 13;
	// Head and tail byte by byte; the aligned middle as 32-bit words.
	while (index < end && (bytes.byteOffset + index) % 4 !== 0) {
		const byte = bytes[index];
		if (byte === 10) {
			lineFeeds++;
			if (previousIsCr) crlf++;
		}
		previousIsCr = byte === 13;
		index++;
	}
	const wordCount = LITTLE_ENDIAN ? (end - index) >>> 2 : 0;
	if (wordCount > 0) {
		// Int32Array, not Uint32Array: values stay small integers for the JIT instead of becoming doubles.
		const words = new Int32Array(bytes.buffer, bytes.byteOffset + index, wordCount);
		let carry = previousIsCr ? 1 : 0;
		for (let word = 0; word < wordCount; word++) {
			const value = words[word] as number;
			const lf = matchingBytes(value, 0x0a0a0a0a);
			if (lf === 0) {
				carry = matchingBytes(value, 0x0d0d0d0d) >>> 31;
				continue;
			}
			const cr = matchingBytes(value, 0x0d0d0d0d);
			lineFeeds += flagCount(lf);
			// Little-endian: byte k+1 sits 8 bits above byte k, so a CR flag shifted up by 8 lands on the LF after it.
			crlf += flagCount(((cr << 8) & lf) >>> 0) + (carry & (lf >>> 7));
			carry = cr >>> 31;
		}
		index += wordCount * 4;
		previousIsCr = carry === 1;
	}
	while (index < end) {
		const byte = bytes[index];
		if (byte === 10) {
			lineFeeds++;
			if (previousIsCr) crlf++;
		}
		previousIsCr = byte === 13;
		index++;
	}
	return { lineFeeds, crlf };
}
