// A change to a YAML file that parsed is checked by reading only the top-level entries it touched
// (issue 28: ≤ 5 ms for a 2,000-line file; the parser reads 2,000 lines in 50-100 ms). A block
// mapping's entry that starts at column 0 ends where the next one starts: what came before it is
// closed by then, whatever the entry holds. So the new text of the entries from the last key at
// the start of a line before the change to the first one after it (or the end of the document's
// content) can be read alone: when it reads clean as a block mapping at column 0, the whole
// text does, but for what the piece cannot see, checked here or left to the whole read:
// - duplicate keys among the document's other entries: compared with the kept keys;
// - anchors and aliases need nothing: this parser's reading does not resolve aliases (an alias
//   to no anchor is not an error) and merge keys (`<<`) are off, so no error depends on them;
// - document markers and directives in the piece, a piece that does not start at column 0 on a
//   key or comment, or does not end at the end of a line (whole read).
import { changedSpan } from "../changed-span.js";
import type { KeptReading } from "./kept-readings.js";
import {
	documentsCover,
	entriesOf,
	onlyComments,
	parseYamlDocuments,
	UNIQUE_KEY,
	type YamlEntry,
	type YamlLayout,
	type YamlReading,
} from "./yaml-reading.js";

/** A document marker (`---`, `...`) or a directive (`%`) at the start of a line. */
const DOCUMENT_LEVEL = /(?:^|\n)(?:---|\.\.\.|%)/;

/** Characters a piece may not start with: indentation, an empty line, a byte order mark. */
function startsIndented(piece: string): boolean {
	const first = piece.charCodeAt(0);
	return first === 32 || first === 9 || first === 10 || first === 13 || first === 0xfeff;
}

/** Which kept entries the change replaces: `from`..`to` (exclusive), and the piece's old end. */
function regionOf(layout: YamlLayout, text: string, start: number, oldEnd: number) {
	const { entries } = layout;
	let from = -1;
	for (let index = 0; index < entries.length && (entries[index] as YamlEntry).start <= start; index++) {
		if ((entries[index] as YamlEntry).boundary) from = index;
	}
	const first = entries[from];
	if (!first) return undefined;
	let to = from + 1;
	for (; to < entries.length; to++) {
		const entry = entries[to] as YamlEntry;
		if (entry.document !== first.document) break;
		if (entry.boundary && entry.start >= oldEnd && entry.start > first.start) {
			return { from, to, start: first.start, end: entry.start, nextEntry: true };
		}
	}
	// A content that ends on an empty value stops before its line's end: the piece takes the rest
	// of the line (spaces, a comment) so that it ends at the end of a line.
	let end = layout.contentEnds[first.document] ?? -1;
	const lineEnd = text.indexOf("\n", end);
	if (end >= 0 && lineEnd !== -1 && onlyComments(text, end, lineEnd)) end = lineEnd + 1;
	if (end < oldEnd) return undefined;
	return { from, to, start: first.start, end, nextEntry: false };
}

/**
 * The reading of `text` derived from the clean reading of `last` by reading only the entries the
 * change touched; undefined when that cannot say without a whole read (see the file's head).
 */
export function updatedYamlReading(
	last: KeptReading & { reading: YamlReading },
	text: string,
): YamlReading | undefined {
	const layout = last.reading.layout;
	if (!layout || last.reading.problems.length > 0) return undefined;
	const span = changedSpan(last.text, text);
	const region = regionOf(layout, last.text, span.start, span.oldEnd);
	if (!region) return undefined;
	const delta = span.newEnd - span.oldEnd;
	const newEnd = region.end + delta;
	const piece = text.slice(region.start, newEnd);
	if (startsIndented(piece) || DOCUMENT_LEVEL.test(piece)) return undefined;
	if (piece !== "" && newEnd < text.length && !piece.endsWith("\n")) return undefined;
	const documents = parseYamlDocuments(piece);
	if (documents.length > 1 || documents.some((document) => document.errors.length > 0)) return undefined;
	if (!documentsCover(piece, documents)) return undefined;
	const document = documents[0];
	const { document: index } = layout.entries[region.from] as YamlEntry;
	let added: YamlEntry[] = [];
	if (document && document.contents !== null) {
		const read = entriesOf(document, piece, index, region.start);
		// The piece must be a mapping whose first key starts the piece or a line after comments.
		const head = read?.entries[0];
		if (!read || !head || (head.start !== region.start && piece.charCodeAt(head.start - region.start - 1) !== 10)) {
			return undefined;
		}
		if (head.start !== region.start && piece.charCodeAt(0) !== 35) return undefined;
		added = read.entries;
	} else if (!region.nextEntry) {
		// Only comments left: the document's content would end elsewhere (or vanish).
		return undefined;
	}
	if (duplicates(layout.entries, region.from, region.to, added)) return undefined;
	const moved = (entry: YamlEntry) => ({ ...entry, start: entry.start + delta });
	const entries = [
		...layout.entries.slice(0, region.from),
		...added,
		...(delta === 0 ? layout.entries.slice(region.to) : layout.entries.slice(region.to).map(moved)),
	];
	const contentEnds = layout.contentEnds.map((end, document) => (document >= index && end >= 0 ? end + delta : end));
	return { problems: [], incomplete: false, layout: { entries, contentEnds } };
}

/** Whether a new entry's key equals a key of its document outside the replaced entries. */
function duplicates(entries: readonly YamlEntry[], from: number, to: number, added: readonly YamlEntry[]): boolean {
	if (added.length === 0) return false;
	const document = added[0]?.document;
	const keys = new Set<unknown>();
	for (const [index, entry] of entries.entries()) {
		if (entry.document === document && (index < from || index >= to)) keys.add(entry.key);
	}
	return added.some((entry) => entry.key !== UNIQUE_KEY && keys.has(entry.key));
}
