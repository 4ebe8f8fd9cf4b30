import { join } from "node:path";
import { type TruncationResult, truncateHead } from "../../engine/index.js";
import { randomHex } from "../random-hex.js";
import { sanitizeTerminalOutput } from "./sanitize.js";

/** The output of a finished command, as the model will see it. */
export interface ShellOutput {
	/** The sanitized tail within the budget (with a marker when a single line was cut). */
	text: string;
	/** Totals of the raw output and size of what is shown. */
	truncation: Omit<TruncationResult, "content"> & { lineCut: boolean };
	/** The file holding the complete raw output, present when `truncation.truncated`. */
	fullOutputPath?: string;
	/** Set when `fullOutputPath` is on another machine: how to name it, e.g. `ssh://dev@box:22`. Default: this machine. */
	fullOutputHost?: string;
	/** Set when the full-output file could not be written completely. */
	fullOutputError?: string;
}

/** The budget the model's view of the output must fit. */
export interface TailBudget {
	maxBytes: number;
	maxLines: number;
}

/** A rendered tail: the truncation of the sanitized text, and whether raw lines were left out first. */
export type RenderedTail = TruncationResult & { cut: boolean };

/** Length of `bytes` without a trailing, incomplete UTF-8 sequence. */
export function completeUtf8Length(bytes: Buffer): number {
	const length = bytes.length;
	for (let back = 1; back <= Math.min(3, length); back++) {
		const byte = bytes[length - back] ?? 0;
		if ((byte & 0xc0) === 0x80) continue; // continuation byte: look further back for the lead
		const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
		return needed > back ? length - back : length;
	}
	return length;
}

/**
 * Turns the last raw bytes of an output into what the model sees: whole characters only,
 * terminal sequences stripped, cut to the budget from the end. `startsMidStream` says the bytes
 * are not the whole output (they may then begin inside a character).
 */
export function renderTail(raw: Buffer, startsMidStream: boolean, budget: TailBudget): RenderedTail {
	let bytes = raw;
	let cut = false;
	if (startsMidStream) {
		let start = 0;
		while (start < 3 && start < bytes.length && ((bytes[start] ?? 0) & 0xc0) === 0x80) start++;
		bytes = bytes.subarray(start);
	}
	bytes = bytes.subarray(0, completeUtf8Length(bytes));
	// Sanitizing never joins lines, so the last maxLines raw lines are all the budget can show;
	// cutting there first keeps the work per call small however many short lines the tail holds.
	let position = bytes.length - (bytes[bytes.length - 1] === 10 ? 2 : 1);
	for (let line = 0; line < budget.maxLines && position >= 0; line++) position = bytes.lastIndexOf(10, position) - 1;
	if (position >= 0) {
		bytes = bytes.subarray(position + 2);
		cut = true;
	}
	const text = sanitizeTerminalOutput(bytes.toString("utf8"));
	return { ...truncateHead(text, budget), cut };
}

/** Puts a finished output's facts together as the model will read them. */
export function describeOutput(options: {
	tail: RenderedTail;
	/** True when the model sees less than the whole output. */
	truncated: boolean;
	totalBytes: number;
	/** `\n` bytes in the whole output. */
	newlines: number;
	/** The output's last byte, or -1 when there was none. */
	lastByte: number;
	fullOutputPath?: string;
	fullOutputError?: string;
}): ShellOutput {
	const { tail, truncated, totalBytes } = options;
	const lineCut = tail.partialLine;
	const marker = lineCut ? `[… line cut: only its last ${tail.outputBytes} bytes fit in the output budget]\n` : "";
	return {
		text: marker + tail.content,
		truncation: {
			truncated,
			truncatedBy: truncated ? (tail.truncatedBy ?? (tail.cut ? "lines" : "bytes")) : null,
			originalLines: options.newlines + (totalBytes > 0 && options.lastByte !== 10 ? 1 : 0),
			originalBytes: totalBytes,
			outputLines: tail.outputLines,
			outputBytes: tail.outputBytes,
			partialLine: tail.partialLine,
			lineCut,
		},
		fullOutputPath: truncated ? options.fullOutputPath : undefined,
		fullOutputError: options.fullOutputError,
	};
}

/** A fresh path for a full-output file in `folder` (create it exclusively: the folder may be shared). */
export function outputFilePath(folder: string): string {
	return join(folder, `toolbelt-shell-${process.pid}-${Date.now()}-${randomHex(6)}.log`);
}
