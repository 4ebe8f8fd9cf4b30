/**
 * Counting line feeds in UTF-8 bytes four at a time (SWAR): the line numbers of an edit in a large
 * file cost one quick pass, not one native call per line.
 */

// Word-wise reading assumes little-endian byte order (every platform Node supports in practice).
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** Counts `\n` bytes in `bytes[from, to)`. */
export function countLineFeeds(bytes: Uint8Array, from: number, to: number): number {
	let count = 0;
	let index = Math.max(0, from);
	const end = Math.min(to, bytes.length);
	// Head and tail byte by byte; the aligned middle as 32-bit words.
	while (index < end && (bytes.byteOffset + index) % 4 !== 0) {
		if (bytes[index] === 10) count++;
		index++;
	}
	const wordCount = LITTLE_ENDIAN ? (end - index) >>> 2 : 0;
	if (wordCount > 0) {
		// Int32Array, not Uint32Array: values stay small integers for the JIT instead of becoming doubles.
		const words = new Int32Array(bytes.buffer, bytes.byteOffset + index, wordCount);
		for (let word = 0; word < wordCount; word++) {
			const x = (words[word] as number) ^ 0x0a0a0a0a;
			// Bit 7 of each byte that was 0x0a; exact, as no carry crosses a byte.
			const flags = ~(((x & 0x7f7f7f7f) + 0x7f7f7f7f) | x) & 0x80808080;
			if (flags !== 0) count += Math.imul(flags >>> 7, 0x01010101) >>> 24;
		}
		index += wordCount * 4;
	}
	while (index < end) {
		if (bytes[index] === 10) count++;
		index++;
	}
	return count;
}
