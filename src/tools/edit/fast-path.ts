import type { EditRequest } from "./matching/match.js";
import { omissionPlaceholder } from "./placeholders.js";
import { type AppliedReplacement, type PendingReplacement, spliceReplacements } from "./splice.js";
import { withLineEnding } from "./text.js";
import { bytesSource, lineEndingNear } from "./text-source.js";

/** An edit applied to the bytes directly. */
export interface BytePlan {
	/** The new file bytes, `prefix` included. */
	output: Buffer;
	/** The new body (output without the prefix), a view into `output`. */
	body: Buffer;
	/** Every replaced span, ascending, in byte offsets of the old and new body. */
	replacements: AppliedReplacement[];
}

const CRLF = Buffer.from("\r\n");

/** Whether `bytes` holds both a CRLF and a bare LF. */
function hasMixedLineEndings(bytes: Buffer): boolean {
	if (!bytes.includes(CRLF)) return false;
	for (let index = bytes.indexOf(10); index !== -1; index = bytes.indexOf(10, index + 1)) {
		if (index === 0 || bytes[index - 1] !== 13) return true;
	}
	return false;
}

type Pending = PendingReplacement<Buffer>;

/**
 * The common case, done without decoding the file: every old_string occurs exactly once (or, with
 * replace_all, at least once) byte for byte, and nothing overlaps. UTF-8 is self-synchronizing, so
 * a byte match of valid UTF-8 in valid UTF-8 always starts and ends on character boundaries.
 *
 * Returns undefined whenever anything needs the full ladder or an error message — the text path
 * then decides, with the same outcome a successful fast path would have had.
 */
export function planExactBytes(options: {
	/** The file's text as bytes, without BOM (a view is fine: nothing is copied until the end). */
	body: Buffer;
	/** Bytes the output starts with (the BOM, when the file has one). */
	prefix: Buffer;
	requests: readonly EditRequest[];
}): BytePlan | undefined {
	const { body: bytes, prefix, requests } = options;
	const source = bytesSource(bytes);
	const pending: Pending[] = [];
	let changes = false;
	for (const [editIndex, request] of requests.entries()) {
		if (request.oldString === "" || request.oldString === request.newString) return undefined;
		// A placeholder in new_string is refused, with its message, by the text path.
		if (omissionPlaceholder(request.oldString, request.newString)) return undefined;
		const needle = Buffer.from(request.oldString, "utf8");
		const starts: number[] = [];
		let lastEnd = -1;
		for (let index = bytes.indexOf(needle); index !== -1; index = bytes.indexOf(needle, index + 1)) {
			if (!request.replaceAll && starts.length > 0) return undefined;
			// With replace_all, overlapping occurrences are replaced left to right: skip those inside the last one.
			if (index >= lastEnd) {
				starts.push(index);
				lastEnd = index + needle.length;
			}
		}
		if (starts.length === 0) return undefined;
		// In a file of mixed line endings, lines that differ only in their CRs read the same: the text path counts them too.
		if (!request.replaceAll && needle.includes(10) && hasMixedLineEndings(bytes)) return undefined;
		for (const start of starts) {
			const text = withLineEnding(request.newString, lineEndingNear(source, start));
			const splitsCrlf = text.startsWith("\r\n") && bytes[start] === 10 && bytes[start - 1] === 13;
			const from = splitsCrlf ? start - 1 : start;
			const end = start + needle.length;
			const data = Buffer.from(text, "utf8");
			if (!changes && !data.equals(bytes.subarray(from, end))) changes = true;
			pending.push({ editIndex, start: from, end, inserted: data });
		}
	}
	if (!changes) return undefined;
	pending.sort((a, b) => a.start - b.start || a.end - b.end);
	const spliced = spliceReplacements(pending, (start, end) => bytes.subarray(start, end));
	if (!spliced) return undefined;
	const output = Buffer.concat([prefix, ...spliced.pieces], prefix.length + spliced.length);
	return { output, body: output.subarray(prefix.length), replacements: spliced.replacements };
}
