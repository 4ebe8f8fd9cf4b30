/**
 * Counts `\n` bytes. Shell output can be gigabytes, so this reads four bytes per step with a
 * zero-byte test on 32-bit words (about twice as fast as a byte loop, far faster than indexOf).
 */
export function countNewlines(bytes: Uint8Array): number {
	let count = 0;
	let index = 0;
	const length = bytes.length;
	// Bytes before the first 4-byte boundary, so the word view is aligned.
	const misalignment = (4 - (bytes.byteOffset & 3)) & 3;
	for (; index < length && index < misalignment; index++) if (bytes[index] === 10) count++;
	const wordCount = (length - index) >>> 2;
	if (wordCount > 0) {
		const words = new Int32Array(bytes.buffer, bytes.byteOffset + index, wordCount);
		for (let word = 0; word < wordCount; word++) {
			// XOR turns newline bytes into zero bytes; the classic test sets the high bit of every non-zero byte.
			const value = (words[word] as number) ^ 0x0a0a0a0a;
			const nonZero = (((value & 0x7f7f7f7f) + 0x7f7f7f7f) | value) & 0x80808080;
			const zeroBits = (~nonZero & 0x80808080) >>> 7;
			count += Math.imul(zeroBits, 0x01010101) >>> 24;
		}
		index += wordCount << 2;
	}
	for (; index < length; index++) if (bytes[index] === 10) count++;
	return count;
}
