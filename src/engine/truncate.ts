/** Default model-facing budget per result: lines. */
export const DEFAULT_MAX_LINES = 2000;
/** Default model-facing budget per result: bytes (50 KB). */
export const DEFAULT_MAX_BYTES = 50 * 1024;

/** Limits for `truncateHead` / `truncateTail`. */
export interface TruncationOptions {
	/** Most UTF-8 bytes to keep. Default: `DEFAULT_MAX_BYTES` (50 KB). */
	maxBytes?: number;
	/** Most lines to keep. Default: `DEFAULT_MAX_LINES` (2,000). */
	maxLines?: number;
}

/** What was kept and what was cut. */
export interface TruncationResult {
	/** The kept text. Identical to the input when `truncated` is false. */
	content: string;
	/** True when anything was cut. */
	truncated: boolean;
	/** Which limit cut the text, or null when nothing was cut. */
	truncatedBy: "lines" | "bytes" | null;
	/** Lines in the input (a trailing newline does not start a new line). */
	originalLines: number;
	/** UTF-8 bytes in the input. */
	originalBytes: number;
	/** Lines in `content`. */
	outputLines: number;
	/** UTF-8 bytes in `content`. */
	outputBytes: number;
	/** True when a single line exceeded `maxBytes` and only part of it was kept. */
	partialLine: boolean;
}

/**
 * Texts up to this many characters have their lines counted by one `split`: a native pass, where a
 * loop of `indexOf` runs a step per line in V8's interpreter in a process's first call (1-2 ms for
 * a 2,000-line result). Beyond it, the loop: no array of every line.
 */
const splitCountChars = 1 << 20;

/** Counts lines the way a person does: `"a\nb\n"` has two lines, `""` has none. */
export function countLines(text: string): number {
	if (text.length === 0) return 0;
	const ends = text.endsWith("\n") ? 1 : 0;
	if (text.length <= splitCountChars) return text.split("\n").length - ends;
	let count = 1;
	let index = text.indexOf("\n");
	while (index !== -1) {
		count++;
		index = text.indexOf("\n", index + 1);
	}
	return count - ends;
}

/** Splits into lines, dropping the empty segment after a trailing newline. */
function splitLines(text: string): string[] {
	const lines = text.split("\n");
	if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
	return lines;
}

function untouched(text: string, lines: number, bytes: number): TruncationResult {
	return {
		content: text,
		truncated: false,
		truncatedBy: null,
		originalLines: lines,
		originalBytes: bytes,
		outputLines: lines,
		outputBytes: bytes,
		partialLine: false,
	};
}

/**
 * The longest prefix of `text` whose UTF-8 encoding fits in `maxBytes`, never splitting a
 * character (a surrogate pair is one 4-byte character in UTF-8).
 */
export function utf8Prefix(text: string, maxBytes: number): string {
	const bytes = Buffer.from(text, "utf8");
	if (bytes.length <= maxBytes) return text;
	let end = Math.max(0, maxBytes);
	while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
	return bytes.subarray(0, end).toString("utf8");
}

/** The longest suffix of `text` whose UTF-8 encoding fits in `maxBytes`, never splitting a character. */
export function utf8Suffix(text: string, maxBytes: number): string {
	const bytes = Buffer.from(text, "utf8");
	if (bytes.length <= maxBytes) return text;
	let start = bytes.length - Math.max(0, maxBytes);
	while (start < bytes.length && ((bytes[start] ?? 0) & 0xc0) === 0x80) start++;
	return bytes.subarray(start).toString("utf8");
}

/**
 * Cuts from the tail and keeps the head: for files and search results, where the beginning
 * matters and the model continues with an offset.
 */
export function truncateTail(text: string, options: TruncationOptions = {}): TruncationResult {
	return truncate(text, options, "head");
}

/**
 * Cuts from the head and keeps the tail: for shell output, where the latest lines (errors,
 * summaries) matter most.
 */
export function truncateHead(text: string, options: TruncationOptions = {}): TruncationResult {
	return truncate(text, options, "tail");
}

function truncate(text: string, options: TruncationOptions, keep: "head" | "tail"): TruncationResult {
	const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
	const maxLines = options.maxLines ?? DEFAULT_MAX_LINES;
	const originalBytes = Buffer.byteLength(text, "utf8");
	const originalLines = countLines(text);
	if (originalBytes <= maxBytes && originalLines <= maxLines) return untouched(text, originalLines, originalBytes);

	const lines = splitLines(text);
	const kept: string[] = [];
	let bytes = 0;
	let truncatedBy: "lines" | "bytes" = "lines";
	let partialLine = false;
	for (let step = 0; step < lines.length; step++) {
		const line = lines[keep === "head" ? step : lines.length - 1 - step] ?? "";
		if (kept.length >= maxLines) {
			truncatedBy = "lines";
			break;
		}
		const lineBytes = Buffer.byteLength(line, "utf8") + (kept.length > 0 ? 1 : 0);
		if (bytes + lineBytes > maxBytes) {
			truncatedBy = "bytes";
			if (kept.length === 0) {
				// A single line larger than the whole budget: keep the part of it nearest the kept edge.
				const part = keep === "head" ? utf8Prefix(line, maxBytes) : utf8Suffix(line, maxBytes);
				kept.push(part);
				bytes = Buffer.byteLength(part, "utf8");
				partialLine = true;
			}
			break;
		}
		kept.push(line);
		bytes += lineBytes;
	}
	if (keep === "tail") kept.reverse();
	const content = kept.join("\n");
	return {
		content,
		truncated: true,
		truncatedBy,
		originalLines,
		originalBytes,
		outputLines: kept.length,
		outputBytes: Buffer.byteLength(content, "utf8"),
		partialLine,
	};
}

/** The result of `cutText` and `truncateLine`. */
export interface LineTruncationResult {
	/** The text, cut with a marker when it was too long. */
	text: string;
	/** True when anything was cut. */
	truncated: boolean;
}

/** Options of `cutText`. */
export interface CutTextOptions {
	/** Most characters (UTF-16 code units) to keep, markers not counted. */
	maxLength: number;
	/**
	 * Keep a window of `maxLength` around this character index (a fifth of it before), marking both
	 * cut ends: `[… 980 chars] …match… [925 chars …]`. Search uses it so a match in a minified line
	 * stays in view. Default: keep the beginning and mark the end.
	 */
	around?: number;
	/**
	 * Characters already left out after `text` (a streamed line whose rest was never decoded): they
	 * count in the marker, and any makes the text cut. Default: 0.
	 */
	omitted?: number;
	/** What the text is, named in the end marker: `… [line truncated, 20 more characters]`. Default: `"text"`. */
	noun?: string;
}

/** How much of a window goes before the `around` index, so a match reads with some lead-in. */
const LEAD_IN = 0.2;

function isHighSurrogate(code: number): boolean {
	return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
	return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * The one way text is cut for a model: to at most `maxLength` characters, never splitting a
 * surrogate pair, with a marker that says how much is missing so the model knows the text goes
 * on. Keeps the beginning (`… [text truncated, N more characters]`) or, with `around`, a window.
 */
export function cutText(text: string, options: CutTextOptions): LineTruncationResult {
	const { maxLength, omitted = 0 } = options;
	if (text.length <= maxLength && omitted <= 0) return { text, truncated: false };
	if (options.around !== undefined) return cutWindow(text, options.around, maxLength);
	let end = Math.max(0, Math.min(maxLength, text.length));
	if (isHighSurrogate(text.charCodeAt(end - 1))) end--;
	const missing = omitted + text.length - end;
	return {
		text: `${text.slice(0, end)}… [${options.noun ?? "text"} truncated, ${missing} more characters]`,
		truncated: true,
	};
}

function cutWindow(text: string, around: number, maxLength: number): LineTruncationResult {
	let start = Math.max(0, Math.min(around - Math.floor(maxLength * LEAD_IN), text.length - maxLength));
	let end = start + maxLength;
	if (isLowSurrogate(text.charCodeAt(start))) start++;
	if (isLowSurrogate(text.charCodeAt(end))) end--;
	const head = start > 0 ? `[… ${start} chars] ` : "";
	const tail = end < text.length ? ` [${text.length - end} chars …]` : "";
	return { text: `${head}${text.slice(start, end)}${tail}`, truncated: true };
}

/**
 * Keeps the first `head` and the last `tail` characters of `text`, with a marker between that says
 * how many were cut: `[… 12,345 characters of this error cut …]`. For text whose end matters as
 * much as its start (an error: what failed, then why). Never splits a surrogate pair.
 */
export function cutMiddle(text: string, options: { head: number; tail: number; noun?: string }): LineTruncationResult {
	if (text.length <= options.head + options.tail) return { text, truncated: false };
	let end = options.head;
	if (isHighSurrogate(text.charCodeAt(end - 1))) end--;
	let start = text.length - options.tail;
	if (isLowSurrogate(text.charCodeAt(start))) start++;
	const marker = `[… ${(start - end).toLocaleString("en-US")} characters of this ${options.noun ?? "text"} cut …]`;
	return { text: `${text.slice(0, end)}${marker}${text.slice(start)}`, truncated: true };
}

/**
 * Cuts a line longer than `maxLength` characters (UTF-16 code units) and appends a marker
 * saying how much was cut: `cutText` for one line. Never splits a surrogate pair.
 */
export function truncateLine(line: string, maxLength: number): LineTruncationResult {
	return cutText(line, { maxLength, noun: "line" });
}

/** Formats a byte count for people and models: `512 B`, `1.5 KB`, `2.0 MB`, `1.0 GB`. */
export function formatSize(bytes: number): string {
	if (bytes < 1024) return `${bytes} B`;
	if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
	if (bytes < 1024 * 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
	return `${(bytes / (1024 * 1024 * 1024)).toFixed(1)} GB`;
}

/** How `formatDuration` writes a duration. */
export type DurationStyle = "elapsed" | "limit";

/**
 * Formats a duration for people and models, in one of two styles:
 * - `"elapsed"` (default), a clock that ran: always tenths, so a line that ticks keeps its width:
 *   `0.4 s`, `12.3 s`, `2 m 05 s`;
 * - `"limit"`, a configured bound stated as it was given: `250 ms`, `1.5 s`, `60 s`.
 */
export function formatDuration(milliseconds: number, style: DurationStyle = "elapsed"): string {
	if (style === "limit") {
		if (milliseconds < 1000) return `${milliseconds} ms`;
		const seconds = milliseconds / 1000;
		return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
	}
	if (milliseconds < 60_000) return `${(milliseconds / 1000).toFixed(1)} s`;
	const seconds = Math.round(milliseconds / 1000);
	return `${Math.floor(seconds / 60)} m ${String(seconds % 60).padStart(2, "0")} s`;
}
