// The read tool's public types, here so the helpers in read/ need not import read.ts (which imports them).

import type { ReadDiagnostics } from "../../diagnostics/index.js";
import type { FileOperations, FileToolOptions } from "../../workspace/index.js";
import type { ReadNotebookDetails, ReadPdfDetails } from "./document-types.js";

export type { ReadNotebookDetails, ReadPdfDetails } from "./document-types.js";

/** The side effects read needs; same as the other file tools. */
export type ReadOperations = FileOperations;

/** Options of the read tool. */
export interface ReadToolOptions extends FileToolOptions {
	/** Lines per page when the call gives no `limit` (a larger `limit` is allowed; the byte budget still applies). Default: 2000. */
	maxLines?: number;
	/** Most UTF-8 bytes of numbered text per page. Default: 50 KB. */
	maxBytes?: number;
	/** Lines longer than this many characters are cut with a marker. Default: 2000. */
	maxLineLength?: number;
	/**
	 * A repeated read of a text range this tool already returned, unchanged since (same hash),
	 * gets a one-line "unchanged since your last read" notice unless the call sets `refresh`.
	 * Default: true.
	 */
	unchangedReads?: boolean;
	/** Return images as image blocks; when false, an image gets a text notice. Default: true. */
	images?: boolean;
	/** Widest image returned, in pixels; larger ones are scaled down. Default: 2000. */
	imageMaxWidth?: number;
	/** Tallest image returned, in pixels; larger ones are scaled down. Default: 2000. */
	imageMaxHeight?: number;
	/** Largest image returned, as base64 characters; larger ones are re-encoded smaller. Default: 4.5 MB. */
	imageMaxBase64Bytes?: number;
	/**
	 * Most pixels of an image file (one frame) that is decoded; a larger one gets a notice, refused
	 * from its header before any pixel is decoded. Default: 100,000,000 (10,000 × 10,000).
	 */
	imageMaxInputPixels?: number;
	/**
	 * Most milliseconds one PDF read may take (checking its streams and extracting the pages asked
	 * for); a read past it is stopped with a notice. Default: 60,000.
	 */
	pdfTimeoutMs?: number;
	/**
	 * The session's language servers (`createDiagnosticsSession`), where the change tools report
	 * diagnostics: a text file read that a server checks starts that server in the background, and
	 * the first such file (up to 1 MB) is shown to it, so its project is loaded by the first change.
	 * Default: none.
	 */
	diagnostics?: ReadDiagnostics;
}

/** Structured result of a text read. */
export interface ReadTextDetails {
	kind: "text";
	/** The path as shown to the model (relative to cwd when inside it). */
	path: string;
	/** The absolute path that was read (after near-miss name resolution). */
	absolutePath: string;
	/** First line shown (1-based); 0 for an empty file. */
	startLine: number;
	/** Last line shown (1-based); 0 for an empty file. */
	endLine: number;
	/** Lines in the file, when known (the read reached the end, or counting the rest was cheap). */
	totalLines: number | undefined;
	/** File size in bytes. */
	size: number;
	/** True when lines remain after `endLine`. */
	truncated: boolean;
	/** Which limit ended the page: the line count (`limit` or the default), the byte budget, or null. */
	truncatedBy: "lines" | "bytes" | null;
	/** The `offset` that continues the read, when `truncated`. */
	nextOffset: number | undefined;
	/** How many shown lines were cut for being longer than `maxLineLength`. */
	longLinesCut: number;
	/** True when the content was not repeated: the same range was read before and is unchanged. */
	unchanged?: boolean;
	/** Set when the file is legacy single-byte text (decoded for the page); absent for UTF-8. */
	encoding?: "latin-1" | "windows-1252";
	/**
	 * Set when the file grew while it was read: its size when the read ended. The page and the line
	 * count cover only the first `size` bytes (a file appended to forever is never read to its end).
	 */
	grownTo?: number;
}

/** Structured result of an image read. */
export interface ReadImageDetails {
	kind: "image";
	path: string;
	absolutePath: string;
	/** MIME type of the image returned (may differ from the file's when re-encoded). */
	mimeType: string;
	/** File size in bytes. */
	size: number;
	/** Pixel size of the file, when it could be read. */
	originalWidth: number | undefined;
	originalHeight: number | undefined;
	/** Pixel size of the image returned (undefined when none was returned). */
	width: number | undefined;
	height: number | undefined;
	/** True when the image was scaled or re-encoded to fit the limits. */
	resized: boolean;
	/** False when no image block could be returned within the limits (a text notice says why). */
	included: boolean;
}

/** Structured result of a binary (or non-UTF-8) file read: only a notice is returned. */
export interface ReadBinaryDetails {
	kind: "binary";
	path: string;
	absolutePath: string;
	/** Detected MIME type, when the bytes name one. */
	mimeType: string | undefined;
	/** File size in bytes. */
	size: number;
	/** Why the file is not shown as text. */
	reason: "nul-byte" | "invalid-utf8" | "known-binary-type";
}

/** Details of a read result. */
export type ReadToolDetails =
	| ReadTextDetails
	| ReadImageDetails
	| ReadBinaryDetails
	| ReadPdfDetails
	| ReadNotebookDetails;

/** Everything `readFileContent` needs about one call. */
export interface ReadFileContentOptions {
	operations: FileOperations;
	/** The existing regular file to read. */
	absolutePath: string;
	/** The path as the model sees it. */
	shownPath: string;
	/** File size in bytes, from `stat`. */
	size: number;
	/** The call's `offset` (1-based; 0 or undefined = from the start). */
	offset: number | undefined;
	/** The call's `limit` in lines. */
	limit: number | undefined;
	/** The tool's options. */
	options: ReadToolOptions;
	signal: AbortSignal | undefined;
}
