import { formatSize, ToolError } from "../../../engine/index.js";

/** Why a PDF's streams were refused. */
export interface StreamRefusal {
	/** True when one stream passed the per-stream cap (false: all of them together passed the total). */
	oneStream?: boolean;
	/** Set when a stream cannot be bounded at all, saying why. */
	refused?: string;
	/** The refused stream's filter chain. */
	filters: readonly string[];
	/** True when the file is encrypted (its streams could only be bounded by their size). */
	encrypted: boolean;
}

/** Most bytes one stream of a PDF may decode to (each stage of its filter chain) before read refuses the file. */
export const MAX_PDF_STREAM_BYTES = 32 * 1024 * 1024;
/** Most bytes all streams of a PDF together may decode to, every stage counted. */
export const MAX_PDF_INFLATED_BYTES = 256 * 1024 * 1024;

function pdftotextHint(shownPath: string): string {
	return `If you trust the file, extract its text via bash with a time and memory limit (e.g. timeout 60 pdftotext -f 1 -l 5 ${shownPath} -).`;
}

/** The refusal of a PDF whose streams decode to more than read decompresses, or cannot be bounded. */
export function pdfTooLarge(shownPath: string, size: number, why: StreamRefusal): ToolError {
	const chain = `[${why.filters.join(" ")}]`;
	const filtersNamed = why.filters.length > 0 ? ` (filters ${chain})` : "";
	const what =
		why.refused !== undefined
			? `one of its streams${filtersNamed} cannot be decoded within a bound: ${why.refused}`
			: why.oneStream
				? `one of its compressed streams (filters ${chain}) inflates to more than ${formatSize(MAX_PDF_STREAM_BYTES)}`
				: `its compressed streams together inflate to more than ${formatSize(MAX_PDF_INFLATED_BYTES)}`;
	const encrypted = why.encrypted
		? " It is encrypted, so read bounds its streams by their size alone; a decrypted copy (qpdf --decrypt) may read."
		: "";
	return new ToolError(
		`${shownPath} is a ${formatSize(size)} PDF, but ${what}, more than read decompresses (a PDF built to exhaust memory looks like this).${encrypted} ${pdftotextHint(shownPath)}`,
		{ path: shownPath, reason: "pdf-inflation" },
	);
}

/** The refusal of a PDF whose text extraction ran past the time cap. */
export function pdfTimedOut(shownPath: string, timeoutMs: number): ToolError {
	return new ToolError(
		`${shownPath}: extracting the PDF's text took longer than ${timeoutMs / 1000} s, read's time limit for one PDF (option pdfTimeoutMs); it was stopped. Read fewer pages at once (offset, limit), or ${pdftotextHint(shownPath).replace(/^If you trust the file, e/, "e")}`,
		{ path: shownPath, reason: "pdf-timeout" },
	);
}
