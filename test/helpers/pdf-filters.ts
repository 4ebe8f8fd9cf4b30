import { brotliCompressSync, constants, deflateSync } from "node:zlib";

/** The stream filters the PDF builder can encode with (names as a PDF's /Filter gives them). */
export type PdfFilter =
	| "FlateDecode"
	| "ASCIIHexDecode"
	| "ASCII85Decode"
	| "LZWDecode"
	| "RunLengthDecode"
	| "BrotliDecode";

function asciiHex(data: Buffer): Buffer {
	return Buffer.from(`${data.toString("hex")}>`, "latin1");
}

function ascii85(data: Buffer): Buffer {
	let text = "";
	for (let at = 0; at < data.length; at += 4) {
		const group = data.subarray(at, at + 4);
		const padded = Buffer.concat([group, Buffer.alloc(4 - group.length)]);
		let value = padded.readUInt32BE(0);
		if (value === 0 && group.length === 4) {
			text += "z";
			continue;
		}
		const digits: string[] = [];
		for (let index = 0; index < 5; index++) {
			digits.unshift(String.fromCharCode((value % 85) + 0x21));
			value = Math.floor(value / 85);
		}
		text += digits.slice(0, group.length + 1).join("");
	}
	return Buffer.from(`${text}~>`, "latin1");
}

/** Runs of one byte as repeats (up to 128), everything else as literal runs (up to 128). */
function runLength(data: Buffer): Buffer {
	const out: number[] = [];
	let at = 0;
	while (at < data.length) {
		let run = 1;
		while (run < 128 && at + run < data.length && data[at + run] === data[at]) run++;
		if (run > 1) {
			out.push(257 - run, data[at] ?? 0);
			at += run;
			continue;
		}
		const start = at;
		while (at < data.length && at - start < 128 && !(data[at + 1] === data[at] && at + 1 < data.length)) at++;
		if (at === start) at++;
		out.push(at - start - 1, ...data.subarray(start, at));
	}
	out.push(128);
	return Buffer.from(out);
}

/** LZW with EarlyChange 1, codes 9–12 bits, a clear code at the start and whenever the table fills. */
function lzw(data: Buffer): Buffer {
	const bytes: number[] = [];
	let bits = 0;
	let bitCount = 0;
	const emit = (code: number, width: number) => {
		bits = (bits << width) | code;
		bitCount += width;
		while (bitCount >= 8) {
			bitCount -= 8;
			bytes.push((bits >>> bitCount) & 0xff);
		}
		bits &= (1 << bitCount) - 1;
	};
	// Entries keyed by (prefix code, next byte) in a flat table, 0 for none: linear in the input and
	// without a hash map's look-ups, so a 34 MB bomb encodes in a fraction of a second.
	const table = new Uint16Array(4096 * 256);
	let next = 258;
	const width = () => (next < 512 ? 9 : next < 1024 ? 10 : next < 2048 ? 11 : 12);
	emit(256, 9);
	let current = -1;
	for (let at = 0; at < data.length; at++) {
		const byte = data[at] ?? 0;
		if (current === -1) {
			current = byte;
			continue;
		}
		const known = table[current * 256 + byte] ?? 0;
		if (known !== 0) {
			current = known;
			continue;
		}
		emit(current, width());
		table[current * 256 + byte] = next++;
		current = byte;
		if (next >= 4000) {
			emit(256, width());
			table.fill(0);
			next = 258;
		}
	}
	if (current !== -1) emit(current, width());
	next++;
	emit(257, width());
	if (bitCount > 0) bytes.push((bits << (8 - bitCount)) & 0xff);
	return Buffer.from(bytes);
}

const ENCODERS: Record<PdfFilter, (data: Buffer) => Buffer> = {
	FlateDecode: (data) => deflateSync(data, { level: 9 }),
	ASCIIHexDecode: asciiHex,
	ASCII85Decode: ascii85,
	LZWDecode: lzw,
	RunLengthDecode: runLength,
	// Quality 4 rather than the default 11: a bomb of spaces packs small either way, ten times sooner.
	BrotliDecode: (data) => brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } }),
};

/** Encodes `data` so that decoding with `filters` in order (a PDF's /Filter array) gives it back. */
export function encodeForFilters(data: Buffer, filters: readonly PdfFilter[]): Buffer {
	let encoded = data;
	for (const filter of [...filters].reverse()) encoded = ENCODERS[filter](encoded);
	return encoded;
}
