import { inflateSync } from "node:zlib";
import { formatSize, ToolError } from "../../engine/index.js";

/** Most bytes one compressed stream of a PDF may inflate to before read refuses the file. */
export const MAX_PDF_STREAM_BYTES = 32 * 1024 * 1024;
/** Most bytes all compressed streams of a PDF together may inflate to. */
export const MAX_PDF_INFLATED_BYTES = 256 * 1024 * 1024;

const STREAM = Buffer.from("stream", "latin1");
const END_STREAM = Buffer.from("endstream", "latin1");
/** How far back from `stream` its dictionary is looked for. */
const DICTIONARY_WINDOW = 4096;

/** The dictionary text just before a `stream` keyword at `at` (from its last `<<`). */
function dictionaryBefore(data: Buffer, at: number): string {
	const text = data.toString("latin1", Math.max(0, at - DICTIONARY_WINDOW), at);
	return text.slice(text.lastIndexOf("<<"));
}

/**
 * Inflates every Flate-compressed stream of a PDF with a cap on its output, before pdf.js sees
 * the file: pdf.js inflates a page's content whole, so a 148 KB file whose page inflates to
 * 50 MB took 12.9 s and 676 MB, and one of 6.3 MB inflating to 2 GB ran past 7 GB. Memory and
 * time here stay bounded by the caps. Images (`/Subtype /Image`) are skipped: text extraction
 * never decodes them, and a scanned page's image may be large.
 */
export function checkPdfInflation(data: Buffer, shownPath: string, signal?: AbortSignal): void {
	let total = 0;
	for (let at = data.indexOf(STREAM); at !== -1; at = data.indexOf(STREAM, at + STREAM.length)) {
		if (at >= 3 && data.toString("latin1", at - 3, at) === "end") continue;
		signal?.throwIfAborted();
		const dictionary = dictionaryBefore(data, at);
		if (!dictionary.includes("FlateDecode") || /\/Subtype\s*\/Image\b/.test(dictionary)) continue;
		let start = at + STREAM.length;
		if (data[start] === 0x0d) start++;
		if (data[start] === 0x0a) start++;
		const end = data.indexOf(END_STREAM, start);
		const compressed = data.subarray(start, end === -1 ? data.length : end);
		const limit = Math.min(MAX_PDF_STREAM_BYTES, MAX_PDF_INFLATED_BYTES - total);
		let inflated: number;
		try {
			inflated = inflateSync(compressed, { maxOutputLength: limit + 1, finishFlush: 2 }).length;
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== "ERR_BUFFER_TOO_LARGE") continue; // damaged: pdf.js judges
			inflated = limit + 1;
		}
		total += inflated;
		if (inflated > limit) throw tooLarge(shownPath, data.length, inflated > MAX_PDF_STREAM_BYTES);
		at = start + compressed.length;
	}
}

function tooLarge(shownPath: string, size: number, oneStream: boolean): ToolError {
	const what = oneStream
		? `one of its compressed streams inflates to more than ${formatSize(MAX_PDF_STREAM_BYTES)}`
		: `its compressed streams together inflate to more than ${formatSize(MAX_PDF_INFLATED_BYTES)}`;
	return new ToolError(
		`${shownPath} is a ${formatSize(size)} PDF, but ${what}, more than read decompresses (a PDF built to exhaust memory looks like this). If you trust the file, extract its text via bash (e.g. pdftotext -f 1 -l 5 ${shownPath} -), with a time and memory limit.`,
		{ path: shownPath, reason: "pdf-inflation" },
	);
}
