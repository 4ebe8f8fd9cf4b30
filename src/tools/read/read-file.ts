import type { ToolResult } from "../../engine/index.js";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatSize, ToolError } from "../../engine/index.js";
import type { ReadableFile } from "../../workspace/index.js";
import { detectLegacyEncoding, encodingName, type LegacyEncoding, shellQuote } from "../../workspace/index.js";
import { isNotebookPath } from "../notebook/notebook-json.js";
import { largeNotebookNotice, readNotebook } from "../notebook/read-notebook.js";
import { growingNotice, grownSize } from "./growing-file.js";
import { fitImage } from "./image.js";
import { headLength, readLinePage } from "./line-pager.js";
import { isPdf, readPdf } from "./pdf/index.js";
import { SNIFF_BYTES, sniff } from "./sniff.js";
import type { ReadBinaryDetails, ReadFileContentOptions, ReadImageDetails, ReadToolDetails } from "./types.js";

export type { ReadFileContentOptions } from "./types.js";

import { blocksWhenRead, isVirtualFile, snapshotVirtualFile, VIRTUAL_MAX_BYTES } from "./virtual-file.js";

/** Default longest line shown, in characters. */
const DEFAULT_MAX_LINE_LENGTH = 2000;
/** After a page, the remaining lines are counted when at most this much of the file is left (~10 ms). */
const COUNT_REST_UP_TO = 16 * 1024 * 1024;
/** Images larger than this are not decoded at all (a decoder would need several times as much memory). */
const MAX_IMAGE_FILE_BYTES = 100 * 1024 * 1024;
const DEFAULT_IMAGE_MAX_SIDE = 2000;
const DEFAULT_IMAGE_MAX_BASE64 = 4.5 * 1024 * 1024;

type ReadResult = ToolResult<ReadToolDetails>;

/** Reads one file for the model: a page of numbered text, an image, or a notice for binary data. */
export async function readFileContent(request: ReadFileContentOptions): Promise<ReadResult> {
	const file = await request.operations.open(request.absolutePath);
	try {
		// One read serves the sniff and, for a text file, the page's first chunk (a small file whole).
		const head = await readHead(file, headLength(request.size, request.offset ?? 1, maxBytesOf(request)));
		const sampleBytes = Math.min(SNIFF_BYTES, head.length);
		const sample = head.subarray(0, sampleBytes);
		// Paged documents (PDF pages, notebook cells) have their own readers over the same open file.
		if (isPdf(sample.subarray(0, sampleBytes))) return await readPdf(request, file);
		const notebook = isNotebookPath(request.absolutePath) ? await readNotebook(request, file) : undefined;
		if (notebook) return notebook;
		const sniffed = await sniff(sample.subarray(0, sampleBytes), sampleBytes >= request.size);
		if (sniffed.kind === "image") {
			await file.close();
			return await readImage(request, sniffed.mimeType);
		}
		const legacy =
			sniffed.kind === "binary" && sniffed.reason === "invalid-utf8"
				? detectLegacyEncoding(sample.subarray(0, sampleBytes), sampleBytes >= request.size)
				: undefined;
		if (legacy) return await readText(request, file, { firstLineStart: 0, head, encoding: legacy });
		if (isVirtualFile(request.absolutePath, request.size) && !blocksWhenRead(request.absolutePath)) {
			return await readVirtual(request, file);
		}
		if (sniffed.kind === "binary") {
			return binaryNotice(request, {
				reason: sniffed.reason,
				mimeType: sniffed.mimeType,
				description: sniffed.description,
			});
		}
		const text = await readText(request, file, { firstLineStart: sniffed.bom ? 3 : 0, head });
		const notice = isNotebookPath(request.absolutePath)
			? largeNotebookNotice(request.shownPath, request.size)
			: undefined;
		const first = text.content[0];
		if (notice && first?.type === "text") first.text += `\n\n${notice}`;
		return text;
	} finally {
		await file.close();
	}
}

function binaryNotice(
	request: ReadFileContentOptions,
	found: { reason: ReadBinaryDetails["reason"]; mimeType: string | undefined; description: string; line?: number },
): ReadResult {
	const { shownPath, size, absolutePath } = request;
	const text =
		found.reason === "invalid-utf8"
			? `${shownPath} is not UTF-8 text (${found.description}, ${formatSize(size)})` +
				`${found.line ? `: line ${found.line} has bytes that are not valid UTF-8` : ""}. ` +
				"Its bytes are not shown, to avoid garbled characters. If it is text in a legacy encoding such as Latin-1, " +
				"convert it with iconv (via bash) and read the result."
			: found.mimeType?.includes("utf-16")
				? `${shownPath} is UTF-16 text (${formatSize(size)}), which read does not decode. ` +
					`Convert it via bash (iconv -f UTF-16 -t UTF-8 ${shownPath} > converted.txt) and read the result, or view it with iconv -f UTF-16 -t UTF-8 ${shownPath} | head.`
				: `${shownPath} is a binary file (${found.description}, ${formatSize(size)})` +
					`${found.line ? `: line ${found.line} contains NUL bytes` : ""}. Its bytes are not shown.`;
	return {
		content: [{ type: "text", text }],
		details: { kind: "binary", path: shownPath, absolutePath, mimeType: found.mimeType, size, reason: found.reason },
	};
}

/** The first `length` bytes of `file` (fewer when it is shorter), in a buffer of their own. */
async function readHead(file: ReadableFile, length: number): Promise<Buffer> {
	const head = Buffer.allocUnsafe(length);
	let filled = 0;
	while (filled < length) {
		const count = await file.read({ buffer: head, offset: filled, length: length - filled, position: filled });
		if (count === 0) break;
		filled += count;
	}
	return head.subarray(0, filled);
}

function maxBytesOf(request: ReadFileContentOptions): number {
	return request.options.maxBytes ?? DEFAULT_MAX_BYTES;
}

/** How `readText` starts: the byte where line 1 starts (3 after a UTF-8 BOM), the bytes read already, a legacy encoding. */
interface TextStart {
	firstLineStart: number;
	head?: Buffer;
	encoding?: LegacyEncoding;
}

async function readText(request: ReadFileContentOptions, file: ReadableFile, start: TextStart): Promise<ReadResult> {
	const { shownPath, absolutePath, size, options } = request;
	const { firstLineStart, encoding } = start;
	const startLine = Math.max(1, request.offset ?? 1);
	const maxLines = request.limit ?? options.maxLines ?? DEFAULT_MAX_LINES;
	const maxBytes = maxBytesOf(request);
	const maxLineLength = options.maxLineLength ?? DEFAULT_MAX_LINE_LENGTH;
	const base = { kind: "text" as const, path: shownPath, absolutePath, size };

	if (size <= firstLineStart) {
		const grownTo = await grownSize(request.operations, absolutePath, size);
		if (startLine > 1) throw beyondEnd(request, 0, grownTo);
		// Kernel files report a size of 0 whatever they hold, and some block when read: say so
		// instead of claiming they are empty.
		const text = grownTo
			? `${shownPath} was empty when the read began and is growing (${formatSize(grownTo)} now). Read it again to see what was written.`
			: !isVirtualFile(absolutePath, size)
				? `${shownPath} is empty (0 lines).`
				: blocksWhenRead(absolutePath)
					? `${shownPath} is a kernel file that waits for new events when read, so read does not open it. Sample it with a time limit via bash, e.g. timeout 2 cat ${shellQuote(shownPath)}.`
					: `${shownPath} is a kernel file and holds nothing right now (0 bytes when read).`;
		return {
			content: [{ type: "text", text }],
			details: {
				...base,
				startLine: 0,
				endLine: 0,
				totalLines: 0,
				truncated: false,
				truncatedBy: null,
				nextOffset: undefined,
				longLinesCut: 0,
				...(grownTo ? { grownTo } : {}),
			},
		};
	}
	const page = await readLinePage({
		file,
		size,
		firstLineStart,
		startLine,
		maxLines,
		maxBytes,
		maxLineLength,
		countRestUpTo: COUNT_REST_UP_TO,
		signal: request.signal,
		encoding,
		...(start.head ? { head: { position: 0, bytes: start.head } } : {}),
	});
	// Only the bytes there when the read began are paged (see grownSize); a file that grew meanwhile is named as growing.
	const grownTo = isVirtualFile(absolutePath, size)
		? undefined
		: await grownSize(request.operations, absolutePath, size);
	if (page.beyondEnd) throw beyondEnd(request, page.totalLines ?? 0, grownTo);
	if (page.binaryLine !== undefined) {
		return binaryNotice(request, {
			reason: page.binaryLine.reason,
			mimeType: undefined,
			description: page.binaryLine.reason === "nul-byte" ? "NUL bytes" : "invalid UTF-8",
			line: page.binaryLine.line,
		});
	}

	const truncated = page.truncatedBy !== null;
	const nextOffset = truncated ? page.endLine + 1 : undefined;
	const notices: string[] = [];
	if (encoding) {
		notices.push(
			`[${shownPath} is ${encodingName(encoding)} text, not UTF-8: shown decoded. edit and write keep its encoding byte for byte.]`,
		);
	}
	const range = `lines ${startLine}-${page.endLine}`;
	const of =
		page.totalLines !== undefined
			? ` of ${page.totalLines}`
			: ` of a ${formatSize(size)} file (total line count not computed)`;
	if (truncated) {
		const why = page.truncatedBy === "bytes" ? `; ${formatSize(maxBytes)} output limit reached` : "";
		notices.push(`[Showing ${range}${of}${why}. Use offset=${nextOffset} to continue.]`);
	} else if (startLine > 1 && !grownTo) {
		notices.push(`[Showing ${range}${of}: end of file.]`);
	}
	if (grownTo) notices.push(growingNotice({ shownPath, size, grownTo, nextOffset: page.endLine + 1 }));
	if (page.longLinesCut > 0) {
		notices.push(
			`[${page.longLinesCut} ${page.longLinesCut === 1 ? "line was" : "lines were"} longer than ${maxLineLength} characters and cut (the first: line ${page.firstLongLine}); to see the rest of one, use bash: sed -n '${page.firstLongLine}p' ${shellQuote(shownPath)} | cut -c${maxLineLength + 1}-]`,
		);
	}
	const text = notices.length > 0 ? `${page.text}\n\n${notices.join("\n")}` : page.text;
	return {
		content: [{ type: "text", text }],
		details: {
			...base,
			startLine,
			endLine: page.endLine,
			totalLines: page.totalLines,
			truncated,
			truncatedBy: page.truncatedBy,
			nextOffset,
			longLinesCut: page.longLinesCut,
			...(encoding ? { encoding } : {}),
			...(grownTo ? { grownTo } : {}),
		},
	};
}

/** A /proc or /sys file: its size says 0, so its content is read first, then paged like a file. */
async function readVirtual(request: ReadFileContentOptions, file: ReadableFile): Promise<ReadResult> {
	const snapshot = await snapshotVirtualFile(file, request.signal);
	const result = await readText({ ...request, size: snapshot.size }, snapshot.file, { firstLineStart: 0 });
	const self = /^\/proc\/(self|thread-self)\//.test(request.absolutePath)
		? " /proc/self is the process running the tools, not a shell you start."
		: "";
	const cut = snapshot.cut ? ` Only its first ${formatSize(VIRTUAL_MAX_BYTES)} were taken.` : "";
	const first = result.content[0];
	if (first?.type === "text" && (self || cut))
		first.text += `\n\n[${request.shownPath} is generated by the kernel when read.${cut}${self}]`;
	return result;
}

function beyondEnd(request: ReadFileContentOptions, totalLines: number, grownTo?: number): ToolError {
	const lines = `${totalLines} ${totalLines === 1 ? "line" : "lines"}`;
	const hint = totalLines > 0 ? ` Use an offset from 1 to ${totalLines}.` : "";
	const growing = grownTo
		? ` It is growing (${formatSize(request.size)} when the read began, ${formatSize(grownTo)} when it ended): ` +
			`lines written since are not counted. Read again with offset=${totalLines + 1} for what was appended, or follow its end via bash (tail -n 50).`
		: "";
	return new ToolError(
		`offset ${request.offset} is beyond the end of ${request.shownPath}: the file ${grownTo ? `had ${lines} when the read began` : `has ${lines}`}.${growing || hint}`,
		{
			path: request.shownPath,
			totalLines,
			...(grownTo ? { grownTo } : {}),
		},
	);
}

async function readImage(request: ReadFileContentOptions, mimeType: string): Promise<ReadResult> {
	const { shownPath, absolutePath, size, options } = request;
	const details: ReadImageDetails = {
		kind: "image",
		path: shownPath,
		absolutePath,
		mimeType,
		size,
		originalWidth: undefined,
		originalHeight: undefined,
		width: undefined,
		height: undefined,
		resized: false,
		included: false,
	};
	const notice = (why: string): ReadResult => ({
		content: [
			{ type: "text", text: `${shownPath} is an image (${mimeType}, ${formatSize(size)}) that is not shown: ${why}.` },
		],
		details,
	});
	if (options.images === false) return notice("images are turned off for this tool");
	if (size > MAX_IMAGE_FILE_BYTES) return notice(`the file is larger than ${formatSize(MAX_IMAGE_FILE_BYTES)}`);
	const fitted = await fitImage(await request.operations.readFile(absolutePath), mimeType, {
		maxWidth: options.imageMaxWidth ?? DEFAULT_IMAGE_MAX_SIDE,
		maxHeight: options.imageMaxHeight ?? DEFAULT_IMAGE_MAX_SIDE,
		maxBase64Bytes: options.imageMaxBase64Bytes ?? DEFAULT_IMAGE_MAX_BASE64,
		...(options.imageMaxInputPixels !== undefined ? { maxInputPixels: options.imageMaxInputPixels } : {}),
	});
	Object.assign(details, {
		mimeType: fitted.mimeType,
		originalWidth: fitted.originalWidth,
		originalHeight: fitted.originalHeight,
		width: fitted.width,
		height: fitted.height,
		resized: fitted.resized,
		included: fitted.data !== undefined,
	});
	if (fitted.data === undefined) return notice(fitted.note ?? "it does not fit the limits");
	const size2d = fitted.originalWidth !== undefined ? `, ${fitted.originalWidth}×${fitted.originalHeight}` : "";
	const resized = fitted.resized
		? `; scaled to ${fitted.width}×${fitted.height} ${fitted.mimeType} to fit the limits`
		: "";
	const caveat = fitted.note ? `; ${fitted.note}` : "";
	return {
		content: [
			{ type: "text", text: `Image ${shownPath} (${mimeType}${size2d}, ${formatSize(size)}${resized}${caveat}).` },
			{ type: "image", data: fitted.data, mimeType: fitted.mimeType },
		],
		details,
	};
}
