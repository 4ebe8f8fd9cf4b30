import { throwIfAborted } from "../../engine/index.js";
import type { LegacyEncoding, ReadableFile } from "../../workspace/index.js";
import { ChunkReader, type ReadBytes, SCAN_CHUNK_BYTES } from "./chunk-reader.js";
import { LineCollector } from "./line-collector.js";
import { countNewlines } from "./newline-count.js";
import { addLineRun, type BinaryLine, type LineRun, PageLines } from "./page-lines.js";
import { READ_CHUNK_BYTES } from "./read-whole.js";
import { SNIFF_BYTES } from "./sniff.js";

const NEWLINE = 0x0a;

/** Options of `readLinePage`. */
export interface LinePageOptions {
	/** The open file. */
	file: ReadableFile;
	/** File size in bytes (reads stop there, so a growing file gives a consistent page). */
	size: number;
	/** Byte where line 1 starts: 3 to skip a UTF-8 BOM, else 0. */
	firstLineStart: number;
	/** First line to return, 1-based. */
	startLine: number;
	/** Most lines to return. */
	maxLines: number;
	/** Most UTF-8 bytes of numbered output (lines plus the newlines between them). */
	maxBytes: number;
	/** Longer lines (UTF-16 units) are cut with a marker. */
	maxLineLength: number;
	/** After the page, count the remaining lines when at most this many bytes remain. */
	countRestUpTo: number;
	/** Checked between chunks. */
	signal?: AbortSignal;
	/** Decode the lines from this single-byte encoding instead of UTF-8. Default: UTF-8. */
	encoding?: LegacyEncoding;
	/** Bytes of the file already read (`readHead`), used instead of reading them again. */
	head?: ReadBytes;
}

/** One page of numbered lines. */
export interface LinePage {
	/** `cat -n` style lines joined by `\n`: right-aligned number, tab, text. */
	text: string;
	/** Lines shown; 0 when `startLine` is past the end. */
	shownLines: number;
	/** Last line shown (`startLine - 1` when none). */
	endLine: number;
	/** Lines in the file, when the scan reached its end. */
	totalLines: number | undefined;
	/** Which budget ended the page while lines remained, or null when the file ended first. */
	truncatedBy: "lines" | "bytes" | null;
	/** Lines cut for being longer than `maxLineLength`. */
	longLinesCut: number;
	/** The first line that was cut, when any was. */
	firstLongLine: number | undefined;
	/** First shown line that is not text (a NUL byte, or bytes that are not UTF-8): the page must not be shown. */
	binaryLine: BinaryLine | undefined;
	/** True when `startLine` lies beyond the last line; `totalLines` is then the line count. */
	beyondEnd: boolean;
}

/**
 * Streams a file to `startLine` and returns the page of numbered lines from there: two reusable
 * buffers, the lines before the page counted a chunk at a time (`countNewlines`) while the next
 * chunk is read, nothing kept of the skipped lines. The cost grows with the position and the page
 * size, never with the rest of the file.
 */
export async function readLinePage(options: LinePageOptions): Promise<LinePage> {
	const reader = new ChunkReader(options.file, options.size, options.head);
	try {
		return await pageLines(options, reader);
	} finally {
		await reader.settle();
	}
}

async function pageLines(options: LinePageOptions, reader: ChunkReader): Promise<LinePage> {
	const { file, size, startLine, maxLines, maxBytes, maxLineLength, signal } = options;
	const collector = new LineCollector(maxLineLength * 3 + 4, options.encoding !== undefined);
	const page = new PageLines(maxBytes);
	let line = 1; // the line that the byte at `position` belongs to
	let position = options.firstLineStart;
	let lineHasBytes = false; // the current line has bytes (matters at EOF without a final newline)
	let truncatedBy: LinePage["truncatedBy"] = null;
	let stoppedAt = -1; // file position just after the last line shown, when the page filled up
	let stoppedIn: { chunk: Buffer; index: number; next: number } | undefined; // the chunk it filled up in

	if (startLine > 1 && file.skipLines) {
		// A remote file skips to the page where it lives: only the page crosses the wire. It stops at
		// `size`, as this loop does: lines a writer appends meanwhile are not this read's.
		const skipped = await file.skipLines(position, startLine - 1, size);
		position = skipped.position;
		line += skipped.lines;
		lineHasBytes = skipped.partialLine;
	}
	const runBytes = firstReadLength(maxBytes);
	let readLength = line === startLine ? runBytes : SCAN_CHUNK_BYTES;
	outer: while (position < size) {
		throwIfAborted(signal);
		const chunk = await reader.read(position, readLength);
		readLength = SCAN_CHUNK_BYTES;
		if (chunk.length === 0) break;
		let index = 0;
		if (line < startLine) {
			// Most chunks before the page are skipped whole: counted while the next one is read.
			reader.readAhead(position + chunk.length);
			const newlines = countNewlines(chunk);
			if (line + newlines < startLine) {
				line += newlines;
				lineHasBytes = chunk[chunk.length - 1] !== NEWLINE;
				position += chunk.length;
				continue;
			}
		}
		// The page starts in this chunk: find its first line's start.
		while (line < startLine) {
			const newline = chunk.indexOf(NEWLINE, index);
			if (newline === -1) {
				if (index < chunk.length) lineHasBytes = true;
				index = chunk.length;
				break;
			}
			line++;
			index = newline + 1;
			lineHasBytes = false;
		}
		// Lines up to here are taken one by one: a run there held a NUL byte or invalid UTF-8.
		let slowUntil = -1;
		while (line >= startLine && index < chunk.length) {
			let full: LineRun["full"];
			if (!lineHasBytes && index >= slowUntil && !options.encoding) {
				const run = addLineRun({ chunk, index, line, runBytes, maxLines, maxLineLength, page });
				if (run) {
					({ line, index, full } = run);
				} else {
					slowUntil = Math.min(chunk.length, index + runBytes);
				}
			}
			if (full === undefined && (lineHasBytes || index < slowUntil || options.encoding)) {
				const newline = chunk.indexOf(NEWLINE, index);
				if (newline === -1) {
					collector.add(chunk.subarray(index), true);
					lineHasBytes = true;
					index = chunk.length;
					break;
				}
				collector.add(chunk.subarray(index, newline), false);
				if (!page.add(line, collector.finish(maxLineLength))) {
					full = "bytes";
				} else {
					line++;
					index = newline + 1;
					lineHasBytes = false;
					if (page.count >= maxLines) full = "lines";
				}
			}
			if (full !== undefined) {
				stoppedAt = position + index;
				stoppedIn = { chunk, index, next: position + chunk.length };
				truncatedBy = full === "bytes" || stoppedAt < size ? full : null;
				break outer;
			}
		}
		position += chunk.length;
	}

	let totalLines: number | undefined;
	if (stoppedAt === -1) {
		// Reached the end of the file: a last line without a newline still counts.
		totalLines = lineHasBytes ? line : line - 1;
		if (lineHasBytes && line >= startLine && !page.add(line, collector.finish(maxLineLength))) truncatedBy = "bytes";
	} else if (stoppedIn && stoppedAt < size && size - stoppedAt <= options.countRestUpTo) {
		const { chunk, index, next } = stoppedIn;
		const newlines = countNewlines(chunk, index);
		const lastByte = chunk[chunk.length - 1] ?? NEWLINE;
		totalLines = line - 1 + (await countLinesFrom({ reader, position: next, size, newlines, lastByte, signal }));
	} else if (stoppedAt >= size) {
		totalLines = line - 1;
	}
	const shownLines = page.count;
	return {
		text: page.text(),
		shownLines,
		endLine: startLine + shownLines - 1,
		totalLines,
		truncatedBy,
		longLinesCut: page.longLinesCut,
		firstLongLine: page.firstLongLine,
		binaryLine: page.binaryLine,
		beyondEnd: shownLines === 0 && (totalLines ?? 0) < startLine,
	};
}

/**
 * How many bytes to read first, before knowing what the file is: what sniffing needs and, for a
 * page from line 1, the whole file when it fits one chunk (its rest is counted anyway) or about a
 * page's worth (`firstReadLength`). A page further in skips its way there, maybe on a remote side
 * (`skipLines`), so only the sniff's bytes.
 */
export function headLength(size: number, startLine: number, maxBytes: number): number {
	if (startLine > 1) return Math.min(size, SNIFF_BYTES);
	return size <= READ_CHUNK_BYTES ? size : Math.max(SNIFF_BYTES, firstReadLength(maxBytes));
}

/**
 * The first read of a page that starts where the read is: about what a page of `maxBytes` holds
 * (its file bytes are its output less the line numbers, so a quarter more leaves room), in whole
 * 4 KB pages, so a small page touches little memory. 64 KB for the default 50 KB page.
 */
function firstReadLength(maxBytes: number): number {
	return Math.ceil((maxBytes * 1.25) / 4096) * 4096;
}

/**
 * Lines from where the page stopped to the end: newlines, plus one for a last line without a
 * newline. `newlines` were counted already in the chunk the page ended in, which ended with
 * `lastByte`; the chunks from `position` on are read here, each while the one before is counted.
 */
async function countLinesFrom(options: {
	reader: ChunkReader;
	position: number;
	size: number;
	newlines: number;
	lastByte: number;
	signal: AbortSignal | undefined;
}): Promise<number> {
	const { reader, size, signal } = options;
	let { position, newlines, lastByte } = options;
	while (position < size) {
		throwIfAborted(signal);
		const chunk = await reader.read(position);
		if (chunk.length === 0) break;
		reader.readAhead(position + chunk.length);
		newlines += countNewlines(chunk);
		lastByte = chunk[chunk.length - 1] ?? NEWLINE;
		position += chunk.length;
	}
	return lastByte === NEWLINE ? newlines : newlines + 1;
}
