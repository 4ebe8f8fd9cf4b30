import { isUtf8 } from "node:buffer";
import type { ToolResult } from "../../../engine/index.js";
import { DEFAULT_MAX_BYTES, errorMessage, formatSize, ToolError, utf8Prefix } from "../../../engine/index.js";
import type { ReadableFile } from "../../../workspace/index.js";
import type { ReadPdfDetails } from "../document-types.js";
import { readWhole } from "../read-whole.js";
import type { ReadFileContentOptions } from "../types.js";
import { loadPdfjs } from "./library.js";
import { pdfTimedOut } from "./refusals.js";
import { checkPdfStreams } from "./stream-check.js";
import { type TimeCap, withTimeCap } from "./time-cap.js";

/** PDFs larger than this are not parsed (pdf.js holds the whole file in memory). */
const MAX_PDF_BYTES = 256 * 1024 * 1024;
/** The time one PDF read may take, stream check and text extraction together (option `pdfTimeoutMs`). */
export const DEFAULT_PDF_TIMEOUT_MS = 60_000;
/** The PDF specification lets the `%PDF-` header start anywhere in the first 1024 bytes. */
const HEADER_WINDOW = 1024;
const PDF_MAGIC = Buffer.from("%PDF-", "latin1");

/**
 * True when the first bytes of a file are a PDF header (by content, never the extension): `%PDF-`
 * at the start, or later in the first 1024 bytes after bytes that are not text (a source file
 * that merely mentions "%PDF-" near its top stays a text file).
 */
export function isPdf(sample: Uint8Array): boolean {
	const bytes = Buffer.from(sample.buffer, sample.byteOffset, Math.min(sample.length, HEADER_WINDOW));
	const at = bytes.indexOf(PDF_MAGIC);
	if (at <= 0) return at === 0;
	const before = bytes.subarray(0, at);
	return before.includes(0) || !isUtf8(before);
}

/** One text item of a page, as pdf.js reports it (marked-content items have no `str`). */
interface TextItem {
	str?: string;
	hasEOL?: boolean;
}

/** The text of a page: pdf.js's items joined, its end-of-line marks kept, blank-line runs collapsed. */
function pageText(items: readonly TextItem[]): string {
	let text = "";
	for (const item of items) {
		if (typeof item.str !== "string") continue;
		text += item.str;
		if (item.hasEOL) text += "\n";
	}
	return text
		.split("\n")
		.map((line) => line.trimEnd())
		.join("\n")
		.replace(/\n{3,}/g, "\n\n")
		.trim();
}

type PdfDocument = Awaited<ReturnType<Awaited<ReturnType<typeof loadPdfjs>>["getDocument"]>["promise"]>;

async function openDocument(data: Buffer, shownPath: string, cap: TimeCap): Promise<PdfDocument> {
	const pdfjs = await cap.run(loadPdfjs());
	const task = pdfjs.getDocument({
		data: new Uint8Array(data.buffer, data.byteOffset, data.length),
		verbosity: pdfjs.VerbosityLevel.ERRORS,
		isEvalSupported: false,
		disableFontFace: true,
		useSystemFonts: false,
		stopAtErrors: false,
	});
	// Until the document is open, stopping it means destroying its loading task.
	const stop = cap.onStop(() => void task.destroy().catch(() => undefined));
	try {
		return await cap.run(task.promise);
	} catch (error) {
		await task.destroy().catch(() => undefined);
		if (cap.stopped) throw error;
		const password = (error as { name?: string }).name === "PasswordException";
		throw new ToolError(
			password
				? `${shownPath} is a password-protected PDF; read cannot open it. Ask the user for an unprotected copy.`
				: `${shownPath} starts like a PDF but could not be parsed (${errorMessage(error)}). It may be damaged or truncated.`,
			{ path: shownPath },
		);
	} finally {
		stop();
	}
}

type PdfPage = Awaited<ReturnType<PdfDocument["getPage"]>>;

/**
 * A page's text items, read chunk by chunk (pdf.js sends ten items at a time) with the time cap
 * checked between chunks: pdf.js's in-thread worker answers through promises alone, so a timer
 * would not fire before a long page ended. A stop (or any error) leaves the stream open and lets
 * the document's destruction end pdf.js's task: cancelling the stream closes it while the worker
 * still has chunks in flight, and pdf.js then enqueues into the closed stream, which Node 24 turns
 * into an unhandled rejection (one that ends a CLI process).
 */
async function textItems(page: PdfPage, cap: TimeCap): Promise<TextItem[]> {
	const reader = page.streamTextContent().getReader();
	const items: TextItem[] = [];
	try {
		for (;;) {
			const chunk = await cap.run(reader.read());
			if (chunk.done) return items;
			for (const item of (chunk.value as { items: TextItem[] }).items) items.push(item);
			cap.throwIfStopped();
		}
	} finally {
		reader.releaseLock();
	}
}

/** What one page range read produced. */
interface PageRun {
	blocks: string[];
	endPage: number;
	pagesWithoutText: number[];
	truncatedBy: "pages" | "bytes" | null;
	pageCut: boolean;
}

/**
 * Extracts pages from `startPage` on, one at a time, each page's parsed data released before the
 * next, so memory stays bounded by one page whatever the document's length.
 */
async function readPages(
	document: PdfDocument,
	range: { startPage: number; maxPages: number; maxBytes: number },
	cap: TimeCap,
): Promise<PageRun> {
	const total = document.numPages;
	const run: PageRun = {
		blocks: [],
		endPage: range.startPage - 1,
		pagesWithoutText: [],
		truncatedBy: null,
		pageCut: false,
	};
	let used = 0;
	for (let number = range.startPage; number <= total; number++) {
		if (number - range.startPage >= range.maxPages) {
			run.truncatedBy = "pages";
			break;
		}
		cap.throwIfStopped();
		const page = await cap.run(document.getPage(number));
		let text: string;
		try {
			text = pageText(await textItems(page, cap));
		} finally {
			page.cleanup();
		}
		if (text.length === 0) run.pagesWithoutText.push(number);
		const body =
			text.length > 0
				? text
				: "(no text on this page: a scanned image or a blank page; read extracts text only, so use an OCR tool for scans)";
		let block = `[Page ${number} of ${total}]\n${body}`;
		const blockBytes = Buffer.byteLength(block, "utf8") + 2;
		if (used + blockBytes > range.maxBytes) {
			if (run.blocks.length > 0) {
				run.truncatedBy = "bytes";
				break;
			}
			// A single page larger than the whole budget is cut, so paging still moves forward.
			block = `${utf8Prefix(block, range.maxBytes)}\n… [page ${number} cut at the ${formatSize(range.maxBytes)} output limit]`;
			run.pageCut = true;
		}
		run.blocks.push(block);
		run.endPage = number;
		used += blockBytes;
		if (run.pageCut) {
			if (number < total) run.truncatedBy = "bytes";
			break;
		}
	}
	return run;
}

function pageWord(count: number): string {
	return `${count} ${count === 1 ? "page" : "pages"}`;
}

/**
 * Reads a PDF for the model as text, page by page: `offset` and `limit` count pages, every page is
 * headed with its number, and the pages shown fit the same byte budget as a text read.
 */
export async function readPdf(
	request: ReadFileContentOptions,
	file: ReadableFile,
): Promise<ToolResult<ReadPdfDetails>> {
	const { shownPath, size, options } = request;
	if (size > MAX_PDF_BYTES) {
		throw new ToolError(
			`${shownPath} is a ${formatSize(size)} PDF, more than read parses (${formatSize(MAX_PDF_BYTES)}). Split it or extract its text via bash (e.g. pdftotext -f 1 -l 20 ${shownPath} -).`,
			{ path: shownPath },
		);
	}
	const data = await readWhole(file, size, request.signal);
	const timeoutMs = options.pdfTimeoutMs ?? DEFAULT_PDF_TIMEOUT_MS;
	return withTimeCap(
		{ timeoutMs, signal: request.signal, timedOut: () => pdfTimedOut(shownPath, timeoutMs) },
		async (cap) => {
			checkPdfStreams(data, shownPath, { signal: request.signal, deadline: cap.deadline, timeoutMs });
			const document = await openDocument(data, shownPath, cap);
			// Stopping an open document destroys it; pdf.js's worker side then ends its task at its next check.
			const stop = cap.onStop(() => void document.destroy().catch(() => undefined));
			try {
				return await extract(request, document, cap);
			} finally {
				stop();
				await document.destroy();
			}
		},
	);
}

async function extract(
	request: ReadFileContentOptions,
	document: PdfDocument,
	cap: TimeCap,
): Promise<ToolResult<ReadPdfDetails>> {
	const { shownPath, absolutePath, size, options } = request;
	{
		const total = document.numPages;
		const startPage = Math.max(1, request.offset ?? 1);
		if (startPage > total) {
			throw new ToolError(
				`offset ${request.offset} is beyond the end of ${shownPath}: the PDF has ${pageWord(total)} (for a PDF, offset and limit count pages). Use an offset from 1 to ${total}.`,
				{ path: shownPath, totalPages: total },
			);
		}
		const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
		const run = await readPages(
			document,
			{ startPage, maxPages: request.limit ?? Number.POSITIVE_INFINITY, maxBytes },
			cap,
		);
		const nextOffset = run.truncatedBy !== null ? run.endPage + 1 : undefined;
		const range = startPage === run.endPage ? `page ${startPage}` : `pages ${startPage}-${run.endPage}`;
		const why = run.truncatedBy === "bytes" ? `; ${formatSize(maxBytes)} output limit reached` : "";
		const ending =
			nextOffset !== undefined
				? `${why}. Use offset=${nextOffset} to continue.`
				: run.endPage === total
					? ": end of document."
					: ".";
		const empty =
			run.pagesWithoutText.length > 0
				? `\n[${pageWord(run.pagesWithoutText.length)} without text (${run.pagesWithoutText.join(", ")}): scanned images or blank pages.]`
				: "";
		const head = `[PDF ${shownPath}, ${pageWord(total)}, ${formatSize(size)}; text extracted page by page — for a PDF, offset and limit count pages.]`;
		const tail = `[Showing ${range} of ${total}${ending}]${empty}`;
		return {
			content: [{ type: "text", text: `${head}\n\n${run.blocks.join("\n\n")}\n\n${tail}` }],
			details: {
				kind: "pdf",
				path: shownPath,
				absolutePath,
				size,
				totalPages: total,
				startPage,
				endPage: run.endPage,
				pagesWithoutText: run.pagesWithoutText,
				truncated: nextOffset !== undefined,
				truncatedBy: run.truncatedBy,
				nextOffset,
				pageCut: run.pageCut,
			},
		};
	}
}
