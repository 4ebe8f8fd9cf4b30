import { isAscii, isUtf8 } from "node:buffer";
import { cutLine, type FinishedLine } from "./line-collector.js";

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/** Why a shown line is not text. */
export type BinaryLine = { line: number; reason: "nul-byte" | "invalid-utf8" };

/** The numbered lines of a page, within its byte budget, and what they showed about the file. */
export class PageLines {
	readonly lines: string[] = [];
	longLinesCut = 0;
	firstLongLine: number | undefined;
	binaryLine: BinaryLine | undefined;
	private outputBytes = 0;

	constructor(private readonly maxBytes: number) {}

	/** Adds line number `line`; false, adding nothing, when it would overflow the byte budget (the first line always fits). */
	add(line: number, finished: FinishedLine): boolean {
		const number = String(line).padStart(6);
		const formatted = `${number}\t${finished.text}`;
		const textBytes = finished.bytes ?? Buffer.byteLength(finished.text, "utf8");
		const lineBytes = number.length + 1 + textBytes + (this.lines.length > 0 ? 1 : 0);
		if (this.lines.length > 0 && this.outputBytes + lineBytes > this.maxBytes) return false;
		if (finished.problem) this.binaryLine ??= { line, reason: finished.problem };
		if (finished.cut) {
			this.longLinesCut++;
			this.firstLongLine ??= line;
		}
		this.lines.push(formatted);
		this.outputBytes += lineBytes;
		return true;
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
 * Adds the whole lines of `chunk` from `index`, up to `runBytes` bytes of it, to the page, decoded
 * as one string: one check and one decode for the run instead of a buffer view, two checks and a
 * decode per line, which were most of a page's cost. Undefined, adding nothing, when the run holds
 * no whole line, a NUL byte or bytes that are not UTF-8: the line-by-line path then takes these
 * lines (and names the line that is not text).
 */
export function addLineRun(options: LineRunOptions): LineRun | undefined {
	const { chunk, index, maxLines, maxLineLength, page } = options;
	const last = chunk.lastIndexOf(NEWLINE, Math.min(chunk.length, index + options.runBytes) - 1);
	if (last < index) return undefined;
	const run = chunk.subarray(index, last + 1);
	if (run.includes(0) || !isUtf8(run)) return undefined;
	// In ASCII a character is a byte, so byte positions are string positions.
	const ascii = isAscii(run);
	const text = run.toString(ascii ? "latin1" : "utf8");
	let line = options.line;
	let byte = index;
	for (let from = 0; from < text.length; ) {
		const newline = text.indexOf("\n", from);
		const raw = text.slice(from, newline);
		const rawBytes = ascii ? raw.length : Buffer.byteLength(raw, "utf8");
		const carriageReturn = raw.charCodeAt(raw.length - 1) === CARRIAGE_RETURN;
		const { text: shown, cut } = cutLine(carriageReturn ? raw.slice(0, -1) : raw, maxLineLength);
		const bytes = cut ? undefined : rawBytes - (carriageReturn ? 1 : 0);
		if (!page.add(line, { text: shown, cut, problem: undefined, bytes })) return { line, index: byte, full: "bytes" };
		line++;
		byte += rawBytes + 1;
		from = newline + 1;
		if (page.lines.length >= maxLines) return { line, index: byte, full: "lines" };
	}
	return { line, index: byte, full: undefined };
}
