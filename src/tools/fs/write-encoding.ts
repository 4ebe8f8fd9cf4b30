import type { FileOperations } from "../../workspace/index.js";
import { detectLegacyEncoding, encodeLegacy, encodingName } from "../../workspace/index.js";
import { hasBom } from "../edit/text.js";

/** Bytes of an existing file looked at to tell its encoding. */
const SAMPLE_BYTES = 64 * 1024;

/** The bytes a write should store, and a note for the model when the encoding was a choice. */
export interface EncodedContent {
	/** What to write: UTF-8 text, or the old file's legacy bytes. */
	data: string | Buffer;
	/** Said in the result: the encoding kept, or why the file became UTF-8. */
	note: string | undefined;
}

async function sampleOf(operations: FileOperations, path: string): Promise<{ bytes: Buffer; complete: boolean }> {
	const file = await operations.open(path);
	try {
		const bytes = Buffer.alloc(SAMPLE_BYTES);
		const count = await file.read({ buffer: bytes, offset: 0, length: SAMPLE_BYTES, position: 0 });
		return { bytes: bytes.subarray(0, count), complete: count < SAMPLE_BYTES };
	} finally {
		await file.close();
	}
}

/**
 * Replacing a Latin-1 / Windows-1252 file keeps its encoding (the model saw it decoded), so
 * every character it did not change keeps its byte; a new file, or a UTF-8 one, gets UTF-8.
 * When the new content holds characters the old encoding lacks, the file becomes UTF-8 and the
 * note says so. A UTF-8 file's byte-order mark is kept.
 */
export async function encodeLikeExisting(
	operations: FileOperations,
	path: string,
	content: string,
): Promise<EncodedContent> {
	let sample: { bytes: Buffer; complete: boolean };
	try {
		// Only a regular file is sampled: opening a FIFO to read would wait for a writer.
		if ((await operations.stat(path)).kind !== "file") return { data: content, note: undefined };
		sample = await sampleOf(operations, path);
	} catch {
		return { data: content, note: undefined };
	}
	// read and edit hide a UTF-8 byte-order mark and keep it; a whole-file write keeps it too.
	if (hasBom(sample.bytes) && !content.startsWith("\uFEFF")) {
		return { data: `\uFEFF${content}`, note: "Kept the file's UTF-8 byte-order mark." };
	}
	const encoding = detectLegacyEncoding(sample.bytes, sample.complete);
	if (!encoding) return { data: content, note: undefined };
	const encoded = encodeLegacy(content);
	if (encoded.ok) return { data: encoded.bytes, note: `Kept the file's ${encodingName(encoding)} encoding.` };
	const characters = encoded.unsupported.map((char) => JSON.stringify(char)).join(", ");
	return {
		data: content,
		note: `The file was ${encodingName(encoding)} text; the new content holds ${characters}, which that encoding lacks, so it was written as UTF-8.`,
	};
}
