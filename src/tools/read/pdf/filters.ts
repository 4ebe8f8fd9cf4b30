// The decoders of PDF's stream filters, each with a cap on its output, so that read learns what
// pdf.js would decode before pdf.js decodes it. Each follows pdf.js's reading of damaged data where
// that can be followed (a stream's end, stray characters); where it cannot (zlib stops at a damaged
// deflate block that pdf.js's own decoder reads on through), the stage's output is not known and
// only its largest possible size is carried on: the bytes in times the filter's worst expansion.
import { brotliDecompressSync, constants, inflateRawSync } from "node:zlib";

/** A stage's output: its bytes, or only an upper bound on its size (content unknown). */
export type Decoded = { data: Buffer } | { bound: number };

/** What a stage gave: an output, "over" (more than `limit` bytes), or a filter read refuses. */
export type StageResult = Decoded | { over: true } | { refused: string };

/** Most bytes pdf.js's decoders can make of one input byte, for output that cannot be decoded here. */
const WORST_EXPANSION: Record<string, number> = {
	FlateDecode: 1032, // a 258-byte match from two one-bit codes
	LZWDecode: 3641, // a 4096-byte dictionary entry from one 9-bit code
	RunLengthDecode: 64, // 128 repeats from a 2-byte run
	ASCII85Decode: 4, // "z" is four zero bytes
	ASCIIHexDecode: 1,
	BrotliDecode: Number.POSITIVE_INFINITY,
};

/** pdf.js's short names (inline-image abbreviations, which it accepts on streams too). */
const LONG_NAMES: Record<string, string> = {
	Fl: "FlateDecode",
	LZW: "LZWDecode",
	RL: "RunLengthDecode",
	A85: "ASCII85Decode",
	AHx: "ASCIIHexDecode",
	DCT: "DCTDecode",
	JPX: "JPXDecode",
	CCF: "CCITTFaxDecode",
};

/** Image codecs: their output is sized by the image's own header, which nothing here reads. */
const IMAGE_FILTERS = new Set(["DCTDecode", "JPXDecode", "CCITTFaxDecode", "JBIG2Decode"]);

/** A filter's full name. */
export function filterName(name: string): string {
	return LONG_NAMES[name] ?? name;
}

/** True for a filter only an image uses (text extraction never decodes an image). */
export function isImageFilter(name: string): boolean {
	return IMAGE_FILTERS.has(filterName(name));
}

function sized(data: Buffer, limit: number): StageResult {
	return data.length > limit ? { over: true } : { data };
}

/** pdf.js checks the two-byte zlib header itself and then inflates with no checksum test. */
function inflate(input: Buffer, limit: number): StageResult {
	const cmf = input[0] ?? 0;
	const flg = input[1] ?? 0;
	if (input.length < 2 || ((cmf << 8) | flg) % 31 !== 0 || (cmf & 0x0f) !== 8 || (flg & 0x20) !== 0) {
		return { data: Buffer.alloc(0) }; // pdf.js reads such a stream as empty
	}
	try {
		const data = inflateRawSync(input.subarray(2), {
			maxOutputLength: limit + 1,
			finishFlush: constants.Z_SYNC_FLUSH,
		});
		return sized(data, limit);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") return { over: true };
		// zlib stops at a damaged block; pdf.js's decoder may read on (it checks no distance, for one).
		return { bound: input.length * (WORST_EXPANSION.FlateDecode ?? 0) };
	}
}

function brotli(input: Buffer, limit: number): StageResult {
	try {
		return sized(brotliDecompressSync(input, { maxOutputLength: limit + 1 }), limit);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") return { over: true };
		return { refused: "a damaged Brotli stream" };
	}
}

/** A growing output that says when it passes `limit`. */
class Output {
	private buffer = Buffer.alloc(4096);
	length = 0;
	constructor(private readonly limit: number) {}
	/** Makes room for `count` more bytes; false once the total would pass the limit. */
	reserve(count: number): boolean {
		if (this.length + count > this.limit) return false;
		if (this.length + count > this.buffer.length) {
			const grown = Buffer.alloc(Math.min(this.limit, Math.max(this.buffer.length * 2, this.length + count)));
			this.buffer.copy(grown, 0, 0, this.length);
			this.buffer = grown;
		}
		return true;
	}
	push(byte: number): void {
		this.buffer[this.length++] = byte;
	}
	copyFrom(source: Uint8Array, count: number): void {
		this.buffer.set(source.subarray(0, count), this.length);
		this.length += count;
	}
	fill(byte: number, count: number): void {
		this.buffer.fill(byte, this.length, this.length + count);
		this.length += count;
	}
	bytes(): Buffer {
		return this.buffer.subarray(0, this.length);
	}
}

function hexDigit(byte: number): number {
	if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
	if ((byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66)) return (byte & 0x0f) + 9;
	return -1;
}

/** Hex pairs up to `>`; other bytes are skipped, a lone last digit is its high half. */
function asciiHex(input: Buffer, limit: number): StageResult {
	const out = new Output(limit);
	let first = -1;
	for (const byte of input) {
		if (byte === 0x3e) break;
		const digit = hexDigit(byte);
		if (digit < 0) continue;
		if (first < 0) first = digit;
		else {
			if (!out.reserve(1)) return { over: true };
			out.push((first << 4) | digit);
			first = -1;
		}
	}
	if (first >= 0) {
		if (!out.reserve(1)) return { over: true };
		out.push(first << 4);
	}
	return { data: out.bytes() };
}

function isWhite(byte: number | undefined): boolean {
	return byte === 0x20 || byte === 0x09 || byte === 0x0d || byte === 0x0a;
}

/** Base-85 groups up to `~`; `z` is four zeros; a short last group gives one byte less than its digits. */
function ascii85(input: Buffer, limit: number): StageResult {
	const out = new Output(limit);
	const group = new Uint8Array(5);
	let position = 0;
	const next = (): number => {
		while (position < input.length && isWhite(input[position])) position++;
		return position < input.length ? (input[position++] ?? -1) : -1;
	};
	for (;;) {
		const first = next();
		if (first === -1 || first === 0x7e) break;
		if (first === 0x7a) {
			if (!out.reserve(4)) return { over: true };
			out.fill(0, 4);
			continue;
		}
		group[0] = first;
		let count = 1;
		for (; count < 5; count++) {
			const byte = next();
			if (byte === -1 || byte === 0x7e) break;
			group[count] = byte;
		}
		const produced = count - 1;
		for (let index = count; index < 5; index++) group[index] = 0x21 + 84;
		let value = 0;
		for (let index = 0; index < 5; index++) value = value * 85 + ((group[index] ?? 0) - 0x21);
		const bytes = [(value >>> 24) & 0xff, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff];
		if (!out.reserve(Math.max(produced, 0))) return { over: true };
		for (let index = 0; index < produced; index++) out.push(bytes[index] ?? 0);
		if (count < 5) break;
	}
	return { data: out.bytes() };
}

/** Runs: n < 128 copies n + 1 bytes, n > 128 repeats the next byte 257 - n times, 128 ends. */
function runLength(input: Buffer, limit: number): StageResult {
	const out = new Output(limit);
	let position = 0;
	while (position + 1 < input.length) {
		const n = input[position] ?? 128;
		if (n === 128) break;
		if (n < 128) {
			const source = input.subarray(position + 1, position + 2 + n);
			if (!out.reserve(source.length)) return { over: true };
			out.copyFrom(source, source.length);
			position += 2 + n;
		} else {
			if (!out.reserve(257 - n)) return { over: true };
			out.fill(input[position + 1] ?? 0, 257 - n);
			position += 2;
		}
	}
	return { data: out.bytes() };
}

/**
 * LZW as pdf.js decodes it: a 4096-entry dictionary (later entries are not kept), code width
 * 9–12 bits growing one code early when `earlyChange` is 1, 256 clears, 257 ends.
 */
function lzw(input: Buffer, limit: number, earlyChange: number): StageResult {
	const out = new Output(limit);
	const size = 4096;
	const values = new Uint8Array(size);
	const lengths = new Uint16Array(size);
	const previous = new Uint16Array(size);
	const sequence = new Uint8Array(size);
	for (let code = 0; code < 256; code++) {
		values[code] = code;
		lengths[code] = 1;
	}
	let sequenceLength = 0;
	let codeLength = 9;
	let nextCode = 258;
	let previousCode = 0;
	let cached = 0;
	let cachedBits = 0;
	let position = 0;
	for (;;) {
		while (cachedBits < codeLength && position < input.length) {
			cached = ((cached << 8) | (input[position++] ?? 0)) >>> 0;
			cachedBits += 8;
		}
		if (cachedBits < codeLength) break;
		cachedBits -= codeLength;
		const code = (cached >>> cachedBits) & ((1 << codeLength) - 1);
		const hadSequence = sequenceLength > 0;
		if (code < 256) {
			sequence[0] = code;
			sequenceLength = 1;
		} else if (code >= 258) {
			if (code < nextCode) {
				sequenceLength = lengths[code] ?? 0;
				for (let index = sequenceLength - 1, at = code; index >= 0; index--) {
					sequence[index] = values[at] ?? 0;
					at = previous[at] ?? 0;
				}
			} else {
				// pdf.js counts on past its 4096-byte sequence buffer; so does this.
				if (sequenceLength < size) sequence[sequenceLength] = sequence[0] ?? 0;
				sequenceLength++;
			}
		} else if (code === 256) {
			codeLength = 9;
			nextCode = 258;
			sequenceLength = 0;
			continue;
		} else break;
		if (hadSequence) {
			if (nextCode < size) {
				previous[nextCode] = previousCode;
				lengths[nextCode] = (lengths[previousCode] ?? 0) + 1;
				values[nextCode] = sequence[0] ?? 0;
			}
			nextCode++;
			const width = nextCode + earlyChange;
			codeLength = width & (width - 1) ? codeLength : Math.min(Math.log(width) / Math.LN2 + 1, 12) | 0;
		}
		previousCode = code;
		if (!out.reserve(sequenceLength)) return { over: true };
		out.copyFrom(sequence, Math.min(sequenceLength, size));
		if (sequenceLength > size) out.fill(0, sequenceLength - size);
	}
	return { data: out.bytes() };
}

/**
 * Runs one filter of a chain over the previous stage's output, its own output capped at `limit`.
 * A filter pdf.js does not know passes its input through unchanged, as pdf.js does.
 */
export function decodeStage(name: string, input: Decoded, limit: number, earlyChange: number): StageResult {
	const filter = filterName(name);
	if (isImageFilter(filter)) return { refused: `an image codec (${filter}) on a stream that is not an image` };
	const worst = WORST_EXPANSION[filter];
	if (worst === undefined) return input;
	if ("bound" in input) {
		const bound = input.bound * worst;
		return bound > limit ? { over: true } : { bound };
	}
	const data = input.data;
	switch (filter) {
		case "FlateDecode":
			return inflate(data, limit);
		case "LZWDecode":
			return lzw(data, limit, earlyChange);
		case "RunLengthDecode":
			return runLength(data, limit);
		case "ASCII85Decode":
			return ascii85(data, limit);
		case "ASCIIHexDecode":
			return asciiHex(data, limit);
		default:
			return brotli(data, limit);
	}
}
