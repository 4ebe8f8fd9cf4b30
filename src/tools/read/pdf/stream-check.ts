import { monotonicMs } from "../../../engine/index.js";
import { type Decoded, decodeStage, filterName, type StageResult } from "./filters.js";
import { MAX_PDF_INFLATED_BYTES, MAX_PDF_STREAM_BYTES, pdfTimedOut, pdfTooLarge } from "./refusals.js";
import { objectHeaders, type PdfValue, parseValue, skipSpace } from "./syntax.js";

const STREAM = Buffer.from("stream", "latin1");
const END_STREAM = Buffer.from("endstream", "latin1");
const END_OBJECT = Buffer.from("endobj", "latin1");
const TRAILER = Buffer.from("trailer", "latin1");
/** `/Encrypt` in a trailer: the streams are ciphertext until pdf.js decrypts them. */
const ENCRYPTED = /^\/Encrypt[\s\0]*(\d+[\s\0]+\d+[\s\0]+R|<<)/;

/** When the check gives up: the caller's signal, and the moment the time cap ends. */
export interface StreamCheckLimits {
	signal?: AbortSignal;
	/** When the time cap ends (a `monotonicMs()` reading). */
	deadline: number;
	timeoutMs: number;
}

/** The file's objects, read as needed to resolve an indirect `/Length` or `/Filter`. */
class Objects {
	private readonly bodies = new Map<number, number>();
	constructor(
		private readonly data: Buffer,
		headers: readonly { object: number; body: number }[],
	) {
		for (const header of headers) this.bodies.set(header.object, header.body);
	}
	/** The value, references followed (a few steps at most: a loop of references resolves to nothing). */
	resolve(value: PdfValue | undefined): PdfValue | undefined {
		let current = value;
		for (let step = 0; current?.kind === "reference" && step < 8; step++) {
			const body = this.bodies.get(current.object);
			current = body === undefined ? undefined : parseValue(this.data, body)?.value;
		}
		return current?.kind === "reference" ? undefined : current;
	}
}

/** The filter names of a stream: pdf.js reads `/F` before `/Filter`, each a name or an array of names. */
function filtersOf(dictionary: Map<string, PdfValue>, objects: Objects): string[] {
	const value = objects.resolve(dictionary.get("F") ?? dictionary.get("Filter"));
	if (value?.kind === "name") return [value.name];
	if (value?.kind !== "array") return [];
	const names: string[] = [];
	for (const item of value.items) {
		const resolved = objects.resolve(item);
		if (resolved?.kind === "name") names.push(resolved.name);
	}
	return names;
}

/** LZW's EarlyChange for stage `index` (1 unless its parameters say 0). */
function earlyChangeOf(dictionary: Map<string, PdfValue>, index: number, objects: Objects): number {
	let parameters = objects.resolve(dictionary.get("DP") ?? dictionary.get("DecodeParms"));
	if (parameters?.kind === "array") parameters = objects.resolve(parameters.items[index]);
	if (parameters?.kind !== "dictionary") return 1;
	const value = objects.resolve(parameters.entries.get("EarlyChange"));
	return value?.kind === "number" && value.value === 0 ? 0 : 1;
}

/**
 * The bytes pdf.js takes as a stream's data: from the line after `stream`, `/Length` bytes when
 * `endstream` follows them, else up to the first `endstream` (pdf.js searches the same way). A
 * length this file does not hold in plain sight (an object inside a compressed object stream)
 * takes the rest of the file: every decoder stops at its own end mark, so that bounds pdf.js's.
 */
function streamData(data: Buffer, start: number, length: PdfValue | undefined, objects: Objects): Buffer {
	const resolved = objects.resolve(length);
	if (resolved?.kind === "number" && Number.isInteger(resolved.value) && resolved.value >= 0) {
		const end = start + resolved.value;
		if (data.subarray(skipSpace(data, end), skipSpace(data, end) + END_STREAM.length).equals(END_STREAM)) {
			return data.subarray(start, end);
		}
	} else if (length?.kind === "reference") {
		return data.subarray(start);
	}
	const end = data.indexOf(END_STREAM, start);
	return data.subarray(start, end === -1 ? data.length : end);
}

/**
 * True when pdf.js will decrypt the streams: an `/Encrypt` entry in a trailer or in an object's
 * dictionary (a cross-reference stream's holds the trailer's keys), its key read as pdf.js reads
 * names (`/E#6e#63rypt` is /Encrypt: a plain search missed it, and an encrypted bomb passed as
 * undecodable noise). A trailer too long to read counts as encrypted.
 */
function isEncrypted(data: Buffer, dictionaries: readonly Map<string, PdfValue>[]): boolean {
	if (dictionaries.some((entries) => entries.has("Encrypt"))) return true;
	for (let at = data.indexOf(TRAILER); at !== -1; at = data.indexOf(TRAILER, at + TRAILER.length)) {
		const parsed = parseValue(data, at + TRAILER.length);
		if (parsed === undefined) return true;
		if (parsed.value.kind === "dictionary" && parsed.value.entries.has("Encrypt")) return true;
	}
	const key = Buffer.from("/Encrypt", "latin1");
	for (let at = data.indexOf(key); at !== -1; at = data.indexOf(key, at + key.length)) {
		if (ENCRYPTED.test(data.toString("latin1", at, at + 48))) return true;
	}
	return false;
}

/** True when the object whose body starts at `at` is a stream: `stream` comes before its `endobj`. */
function holdsStream(data: Buffer, at: number): boolean {
	const stream = data.indexOf(STREAM, at);
	const end = data.indexOf(END_OBJECT, at);
	return stream !== -1 && (end === -1 || stream < end);
}

/** The line after the `stream` keyword at `at` (pdf.js skips to the next line, CR LF counted once). */
function dataStart(data: Buffer, at: number): number {
	let position = at + STREAM.length;
	while (position < data.length && data[position] !== 0x0a && data[position] !== 0x0d) position++;
	if (data[position] === 0x0d) position++;
	if (data[position] === 0x0a) position++;
	return position;
}

/**
 * Decodes every stream of a PDF that text extraction may decode, its whole filter chain (Flate,
 * LZW, RunLength, ASCII85, ASCIIHex, Brotli, in any order, `/Length` and `/Filter` direct or
 * indirect), each stage capped, before pdf.js sees the file: pdf.js decodes a stream whole, so a
 * 148 KB file whose page inflated to 50 MB took 676 MB, and one of 6.3 MB inflating to 2 GB ran
 * past 7 GB. Images (`/Subtype /Image`) are skipped: text extraction never decodes them. A stream
 * whose output cannot be bounded (an image codec on a page, a damaged Brotli stream) is refused.
 */
export function checkPdfStreams(data: Buffer, shownPath: string, limits: StreamCheckLimits): void {
	const headers = objectHeaders(data);
	const objects = new Objects(data, headers);
	const bodies = headers.map((header) => ({ header, parsed: parseValue(data, header.body) }));
	const encrypted = isEncrypted(
		data,
		bodies.flatMap(({ parsed }) => (parsed?.value.kind === "dictionary" ? [parsed.value.entries] : [])),
	);
	let total = 0;
	for (const { header, parsed } of bodies) {
		limits.signal?.throwIfAborted();
		if (monotonicMs() > limits.deadline) throw pdfTimedOut(shownPath, limits.timeoutMs);
		// pdf.js reads a dictionary of any length; one too long or deep to read here hides its filters.
		if (parsed === undefined && holdsStream(data, header.body)) {
			throw pdfTooLarge(shownPath, data.length, {
				refused: "its dictionary is too long or too deeply nested to read",
				filters: [],
				encrypted,
			});
		}
		if (parsed?.value.kind !== "dictionary") continue;
		const keyword = skipSpace(data, parsed.end);
		if (!data.subarray(keyword, keyword + STREAM.length).equals(STREAM)) continue;
		const dictionary = parsed.value.entries;
		const subtype = objects.resolve(dictionary.get("Subtype"));
		if (subtype?.kind === "name" && subtype.name === "Image") continue;
		const filters = filtersOf(dictionary, objects);
		if (filters.length === 0) continue;
		const raw = streamData(data, dataStart(data, keyword), dictionary.get("Length"), objects);
		// Encrypted streams are decoded after decryption, which is not done here: only their size is known.
		let stage: Decoded = encrypted ? { bound: raw.length } : { data: raw };
		for (const [index, name] of filters.entries()) {
			const limit = Math.min(MAX_PDF_STREAM_BYTES, MAX_PDF_INFLATED_BYTES - total);
			const result: StageResult = decodeStage(name, stage, limit, earlyChangeOf(dictionary, index, objects));
			if ("over" in result) {
				throw pdfTooLarge(shownPath, data.length, {
					oneStream: limit === MAX_PDF_STREAM_BYTES,
					filters: filters.map(filterName),
					encrypted,
				});
			}
			if ("refused" in result) {
				throw pdfTooLarge(shownPath, data.length, {
					refused: result.refused,
					filters: filters.map(filterName),
					encrypted,
				});
			}
			stage = result;
			total += "data" in stage ? stage.data.length : stage.bound;
		}
	}
}
