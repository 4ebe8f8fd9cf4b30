import { isAscii, isUtf8 } from "node:buffer";
import { cutLine, type FinishedLine } from "./line-collector.js";

const NEWLINE = 0x0a;
const TAB = 0x09;
const SPACE = 0x20;
const DIGIT_ZERO = 0x30;
const CARRIAGE_RETURN = 0x0d;
/** Width of the right-aligned line numbers (`cat -n`). */
const NUMBER_WIDTH = 6;

/** Why a shown line is not text. */
export type BinaryLine = { line: number; reason: "nul-byte" | "invalid-utf8" };

/**
 * The numbered lines of a page, within its byte budget, and what they showed about the file. The
 * page is written as UTF-8 bytes into one growing buffer and decoded once at the end: a line of
 * the file's own bytes is copied, never made a string of its own.
 */
export class PageLines {
	/** Lines on the page. */
	count = 0;
	longLinesCut = 0;
	firstLongLine: number | undefined;
	binaryLine: BinaryLine | undefined;
	private output: Buffer;
	private used = 0;

	constructor(private readonly maxBytes: number) {
		this.output = Buffer.allocUnsafe(Math.min(maxBytes, 64 * 1024) + 256);
	}

	/** Adds line number `line`; false, adding nothing, when it would overflow the byte budget (the first line always fits). */
	add(line: number, finished: FinishedLine): boolean {
		const textBytes = finished.bytes ?? Buffer.byteLength(finished.text, "utf8");
		if (!this.start(line, textBytes)) return false;
		if (finished.problem) this.binaryLine ??= { line, reason: finished.problem };
		if (finished.cut) {
			this.longLinesCut++;
			this.firstLongLine ??= line;
		}
		this.used += this.output.write(finished.text, this.used, "utf8");
		return true;
	}

	/** Adds line number `line` as the UTF-8 text `source[start, end)`, uncut; false as `add`. */
	addBytes(line: number, source: Buffer, start: number, end: number): boolean {
		if (!this.start(line, end - start)) return false;
		this.used += source.copy(this.output, this.used, start, end);
		return true;
	}

	/** The page: `cat -n` style lines joined by `\n`. */
	text(): string {
		return this.output.toString("utf8", 0, this.used);
	}

	/** Writes the separator and the number of a line of `textBytes` bytes, if it fits the budget, and makes room for its text. */
	private start(line: number, textBytes: number): boolean {
		const digits = line < 1e6 ? NUMBER_WIDTH : String(line).length;
		const lineBytes = (this.count > 0 ? 1 : 0) + digits + 1 + textBytes;
		if (this.count > 0 && this.used + lineBytes > this.maxBytes) return false;
		this.reserve(lineBytes);
		const output = this.output;
		if (this.count > 0) output[this.used++] = NEWLINE;
		let at = this.used + digits - 1;
		let rest = line;
		do {
			output[at--] = DIGIT_ZERO + (rest % 10);
			rest = Math.floor(rest / 10);
		} while (rest > 0);
		while (at >= this.used) output[at--] = SPACE;
		this.used += digits;
		output[this.used++] = TAB;
		this.count++;
		return true;
	}

	private reserve(bytes: number): void {
		if (this.used + bytes <= this.output.length) return;
		const grown = Buffer.allocUnsafe(Math.max(this.output.length * 2, this.used + bytes));
		this.output.copy(grown, 0, 0, this.used);
		this.output = grown;
	}
}

/** Where `addLineRun` stopped: the next line's number and its byte in the chunk, and why, if the page is full. */
export interface LineRun {
	line: number;
	index: number;
	full: "bytes" | "lines" | undefined;
}

/** Options of `addLineRun`. */
export interface LineRunOptions {
	chunk: Buffer;
	/** Byte of `chunk` where line `line` starts. */
	index: number;
	line: number;
	/** Bytes looked at, at most: about what a page holds. */
	runBytes: number;
	maxLines: number;
	maxLineLength: number;
	page: PageLines;
}

/**
 * Adds the whole lines of `chunk` from `index`, up to `runBytes` bytes of it, to the page: one
 * NUL and UTF-8 check for the run, newlines found in its one-byte (latin1) image, where a
 * character is a byte, and each line's bytes copied to the page as they are; only a line too long
 * to show whole is decoded, to be cut. This replaced a buffer view, two checks, a decode and an
 * encode per line, which were most of a page's cost. Undefined, adding nothing, when the run holds
 * no whole line, a NUL byte or bytes that are not UTF-8: the line-by-line path then takes these
 * lines (and names the line that is not text).
 */
export function addLineRun(options: LineRunOptions): LineRun | undefined {
	const { chunk, index, maxLines, maxLineLength, page } = options;
	const last = chunk.lastIndexOf(NEWLINE, Math.min(chunk.length, index + options.runBytes) - 1);
	if (last < index) return undefined;
	const run = chunk.subarray(index, last + 1);
	if (run.includes(0) || !isUtf8(run)) return undefined;
	// In ASCII a byte is a UTF-16 unit; in any UTF-8 a line has at most as many units as bytes.
	const ascii = isAscii(run);
	const bytes = run.toString("latin1");
	let line = options.line;
	for (let from = 0; from < bytes.length; ) {
		const newline = bytes.indexOf("\n", from);
		const end = newline > from && bytes.charCodeAt(newline - 1) === CARRIAGE_RETURN ? newline - 1 : newline;
		const added =
			end - from <= maxLineLength
				? page.addBytes(line, run, from, end)
				: addLongLine(page, line, run.subarray(from, end), ascii, maxLineLength);
		if (!added) return { line, index: index + from, full: "bytes" };
		line++;
		from = newline + 1;
		if (page.count >= maxLines) return { line, index: index + from, full: "lines" };
	}
	return { line, index: last + 1, full: undefined };
}

/** A line of more bytes than `maxLineLength`: cut to that many UTF-16 units with a marker, unless it has no more units than that. */
function addLongLine(page: PageLines, line: number, bytes: Buffer, ascii: boolean, maxLineLength: number): boolean {
	const { text, cut } = cutLine(bytes.toString(ascii ? "latin1" : "utf8"), maxLineLength);
	return page.add(line, { text, cut, problem: undefined, ...(cut ? {} : { bytes: bytes.length }) });
}
