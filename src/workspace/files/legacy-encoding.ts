import { isUtf8 } from "node:buffer";

/**
 * Legacy single-byte text (Latin-1 / Windows-1252): told apart from UTF-8 and from binary data,
 * decoded for the model, and encoded back so that an unchanged character keeps its exact byte.
 * Windows-1252 is a superset of Latin-1's printable range, so one codec serves both; the name
 * shown is Latin-1 unless the bytes use Windows-1252's extra characters (0x80–0x9F).
 */

/** A legacy encoding a file can be read and written in. */
export type LegacyEncoding = "latin-1" | "windows-1252";

/** Windows-1252's characters at bytes 0x80–0x9F (0 = undefined byte, kept as the C1 code point). */
const HIGH_CONTROLS = [
	0x20ac, 0, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017d, 0, 0,
	0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0, 0x017e, 0x0178,
];
const ENCODE_HIGH = new Map<number, number>(
	HIGH_CONTROLS.flatMap((code, index) => (code === 0 ? [] : [[code, 0x80 + index] as [number, number]])),
);

/** Share of bytes ≥ 0x80 above which "text" is more likely binary or another multi-byte encoding. */
const MAX_HIGH_SHARE = 0.3;

/** The encoding's name as the model reads it in notices. */
export function encodingName(encoding: LegacyEncoding): string {
	return encoding === "latin-1" ? "Latin-1 (ISO-8859-1)" : "Windows-1252";
}

/**
 * The legacy encoding `bytes` are plausibly written in, or undefined: they must be invalid as
 * UTF-8 (valid UTF-8 is read as UTF-8), hold no NUL and no control bytes other than tab, line
 * breaks, form feed and escape, no byte Windows-1252 leaves undefined, and mostly ASCII.
 * `complete` is false for a sample cut from a longer file (a UTF-8 sequence may be cut at its end).
 */
export function detectLegacyEncoding(bytes: Uint8Array, complete = true): LegacyEncoding | undefined {
	if (bytes.length === 0) return undefined;
	const checked = complete ? bytes : bytes.subarray(0, Math.max(0, bytes.length - 3));
	if (isUtf8(checked)) return undefined;
	let high = 0;
	let windows = false;
	for (const byte of bytes) {
		if (byte < 0x20) {
			if (byte !== 9 && byte !== 10 && byte !== 12 && byte !== 13 && byte !== 27) return undefined;
		} else if (byte === 0x7f) return undefined;
		else if (byte >= 0x80) {
			high++;
			if (byte < 0xa0) {
				if (HIGH_CONTROLS[byte - 0x80] === 0) return undefined;
				windows = true;
			}
		}
	}
	if (high / bytes.length > MAX_HIGH_SHARE) return undefined;
	return windows ? "windows-1252" : "latin-1";
}

/** Decodes legacy bytes (`start`..`end`) to text: one character per byte. */
export function decodeLegacy(bytes: Uint8Array, start = 0, end = bytes.length): string {
	const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
	let text = buffer.toString("latin1", start, end);
	if (!/[\x80-\x9f]/.test(text)) return text;
	text = text.replace(/[\x80-\x9f]/g, (char) => {
		const code = HIGH_CONTROLS[char.charCodeAt(0) - 0x80] ?? 0;
		return code === 0 ? char : String.fromCharCode(code);
	});
	return text;
}

/** What `encodeLegacy` made of a text. */
export type LegacyEncoded =
	| { ok: true; bytes: Buffer }
	| { ok: false /** The first characters the encoding cannot hold (at most 5, distinct). */; unsupported: string[] };

/** Encodes text back into Windows-1252 (so a decoded file round-trips byte for byte). */
export function encodeLegacy(text: string): LegacyEncoded {
	const bytes = Buffer.allocUnsafe(text.length);
	const unsupported = new Set<string>();
	for (let index = 0; index < text.length; index++) {
		const code = text.charCodeAt(index);
		let byte: number | undefined;
		if (code < 0x80 || (code >= 0xa0 && code <= 0xff)) byte = code;
		else if (code < 0xa0) byte = HIGH_CONTROLS[code - 0x80] === 0 ? code : undefined;
		else byte = ENCODE_HIGH.get(code);
		if (byte === undefined) {
			if (unsupported.size < 5) unsupported.add(String.fromCodePoint(text.codePointAt(index) ?? code));
			continue;
		}
		bytes[index] = byte;
	}
	return unsupported.size > 0 ? { ok: false, unsupported: [...unsupported] } : { ok: true, bytes };
}

/** A file's bytes as UTF-8 for a text tool, and the legacy encoding they came in (undefined for UTF-8 or binary). */
export function legacyAsUtf8(bytes: Buffer): { bytes: Buffer; encoding: LegacyEncoding | undefined } {
	const encoding = detectLegacyEncoding(bytes);
	return encoding ? { bytes: Buffer.from(decodeLegacy(bytes), "utf8"), encoding } : { bytes, encoding };
}

/**
 * UTF-8 output of a text tool written back in the file's legacy encoding; an Error (with a
 * message for the model) when the new text holds characters the encoding cannot store.
 */
export function utf8AsLegacy(output: Buffer, encoding: LegacyEncoding, shown: string): Buffer | Error {
	const encoded = encodeLegacy(output.toString("utf8"));
	if (encoded.ok) return encoded.bytes;
	const characters = encoded.unsupported.map((char) => JSON.stringify(char)).join(", ");
	return new Error(
		`${shown} is ${encodingName(encoding)} text, which cannot hold ${characters}; the file was left unchanged. ` +
			"Use characters the encoding has (or an ASCII spelling), or convert the file to UTF-8 first (e.g. iconv via bash) if it should change encoding.",
	);
}

/**
 * Text of `bytes[start, end)` for a search result: UTF-8 when valid, else decoded as legacy
 * single-byte text when it plausibly is (so a Latin-1 line shows `é`, not U+FFFD), else UTF-8 with
 * replacement characters as before.
 */
export function decodeText(bytes: Buffer, start = 0, end = bytes.length): string {
	const part = start === 0 && end === bytes.length ? bytes : bytes.subarray(start, end);
	if (isUtf8(part) || !detectLegacyEncoding(part)) return part.toString("utf8");
	return decodeLegacy(part);
}
