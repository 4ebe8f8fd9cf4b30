import { closeSync, constants, fstatSync, openSync, readSync, statSync } from "node:fs";
import { yieldWhenSliceIsUsed } from "../scan-file-handle.js";
import { cutLineBytes, parseHeader, textWindowOf } from "./line-window.js";

/** What ripgrep prints for a line over `--max-columns`, as text after the header (a `\r` may follow). */
const MATCH_MARKER = /^\[Omitted long line with \d+ matches\]\r?$/;
const CONTEXT_MARKER = /^\[Omitted long context line\]\r?$/;

/** Bytes read from the file at a time while looking for a line's end. */
const SCAN_BYTES = 64 * 1024;

/** True for a file that starts with a byte order mark: ripgrep decodes it, and its offsets count the decoded text. */
function startsWithByteOrderMark(head: Buffer, length: number): boolean {
	if (length >= 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return true;
	return length >= 2 && ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff));
}

/** Opens `path` when it is a regular file whose bytes are what ripgrep searches (no byte order mark). */
function openPlainFile(path: string): { descriptor: number; size: number } | undefined {
	let descriptor: number;
	try {
		// Looked at before it is opened: opening a FIFO for reading would let its writer start
		// writing into a pipe that ripgrep has not opened yet.
		if (!statSync(path).isFile()) return undefined;
		// O_NONBLOCK: a FIFO put in the file's place since does not block the process (it is then refused).
		descriptor = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
	} catch {
		return undefined;
	}
	try {
		const info = fstatSync(descriptor);
		const head = Buffer.alloc(3);
		if (info.isFile() && !startsWithByteOrderMark(head, readSync(descriptor, head, 0, 3, 0)))
			return { descriptor, size: info.size };
	} catch {
		// Unreadable: the lines stay as ripgrep printed them.
	}
	closeSync(descriptor);
	return undefined;
}

/**
 * The long lines of one searched file, read from the file itself. ripgrep, run with
 * `--max-columns <minBytes> --byte-offset`, prints a line of `minBytes` or more as a marker with
 * the line's offset, instead of sending all of it through the pipe (a 5 MB line took most of a
 * first call's time: 80 reads of 64 KB, each split and scanned). `restore` puts back what the
 * output splitter would have made of the whole line: the header and the window around the match
 * (`cutLineBytes`), so the answer is the same; it reads the window and looks for the line's end.
 */
export class OmittedLines {
	private constructor(
		private readonly path: string,
		private readonly minBytes: number,
	) {}

	/**
	 * For a file named as a search's path, opened by the same name as ripgrep opens it; undefined
	 * where its long lines cannot be read back as ripgrep saw them (not a regular file, a byte
	 * order mark, unreadable): ripgrep then prints them whole, as without this.
	 */
	static forFile(path: string, minBytes: number): OmittedLines | undefined {
		const file = openPlainFile(path);
		if (file === undefined) return undefined;
		closeSync(file.descriptor);
		return new OmittedLines(path, minBytes);
	}

	/** True when `line` may be a marker (cheap: the line ends with `]`), to be given to `restore`. */
	static mayBeMarker(line: Buffer): boolean {
		const last = line[line.length - 1] === 0x0d ? line[line.length - 2] : line[line.length - 1];
		return last === 0x5d && line.length < 8192;
	}

	/**
	 * The line `line` (a marker from ripgrep) stands for, cut as the splitter cuts a long line;
	 * undefined to keep `line` as it is: it is no marker (a line whose text looks like one is
	 * shorter than `minBytes` in the file), or the file no longer has a long line there.
	 */
	async restore(line: Buffer, signal: AbortSignal): Promise<Buffer | undefined> {
		const header = parseHeader(line, true);
		const text = line.toString("latin1", header.textStart);
		if (!(header.column === undefined ? CONTEXT_MARKER : MATCH_MARKER).test(text)) return undefined;
		const lineStart = Number(header.offset);
		if (header.offset === "" || !Number.isSafeInteger(lineStart)) return undefined;
		const file = openPlainFile(this.path);
		if (file === undefined) return undefined;
		try {
			const found = await this.readLine(file, lineStart, textWindowOf(header.column), signal);
			if (found === undefined || found.length < this.minBytes) return undefined;
			return cutLineBytes(header, [found.window], found.length);
		} finally {
			closeSync(file.descriptor);
		}
	}

	/** The window's bytes of the line at `lineStart`, and the line's length up to its `\n` (or the file's end). */
	private async readLine(
		file: { descriptor: number; size: number },
		lineStart: number,
		window: { start: number; end: number },
		signal: AbortSignal,
	): Promise<{ window: Buffer; length: number } | undefined> {
		const buffer = Buffer.allocUnsafe(SCAN_BYTES);
		if (lineStart > 0 && (readSync(file.descriptor, buffer, 0, 1, lineStart - 1) !== 1 || buffer[0] !== 0x0a))
			return undefined;
		let kept = Buffer.alloc(0);
		let position = lineStart + window.start;
		while (position < file.size) {
			await yieldWhenSliceIsUsed();
			if (signal.aborted) return undefined;
			const read = readSync(file.descriptor, buffer, 0, Math.min(SCAN_BYTES, file.size - position), position);
			if (read === 0) break;
			const newline = buffer.subarray(0, read).indexOf(0x0a);
			const end = newline === -1 ? read : newline;
			const windowLeft = lineStart + window.end - position;
			if (windowLeft > 0) kept = Buffer.concat([kept, buffer.subarray(0, Math.min(end, windowLeft))]);
			if (end < read) return { window: kept, length: position + end - lineStart };
			position += read;
		}
		// A last line without `\n` is printed with ripgrep's own terminator, `\r\n` under `--crlf`
		// (which grep always passes): the splitter counts that `\r` as the line's, and so does this.
		return { window: kept, length: Math.max(0, position - lineStart) + 1 };
	}
}
