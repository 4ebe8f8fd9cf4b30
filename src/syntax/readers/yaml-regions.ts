// A change to a YAML file that parsed is checked by reading only the entries of the innermost block
// mapping it touched (issue 28: ≤ 5 ms for a 2,000-line file; the parser reads 2,000 lines in
// 50-100 ms). An entry whose key starts a line at its mapping's column ends where the next such
// entry starts, or where the mapping ends: what came before it is closed by then, whatever the
// entry holds. So the new text of the entries from the last such key before the change to the first
// one after it can be read alone, its lines moved left by the mapping's column: when it reads clean
// as one block mapping at column 0, the whole text does, but for what the piece cannot see, checked
// here or left to the whole read:
// - duplicate keys among the mapping's other entries: compared with the kept keys;
// - anchors and aliases need nothing: this parser's reading does not resolve aliases (an alias
//   to no anchor is not an error) and merge keys (`<<`) are off, so no error depends on them;
// - document markers and directives in the piece, a line less indented than the mapping, a piece
//   that does not start on a key or comment, does not end at the end of a line, or that the parser
//   did not read to its end (whole read).
import { changedSpan } from "../changed-span.js";
import type { KeptReading } from "./kept-readings.js";
import {
	collectMaps,
	documentsCover,
	onlyComments,
	parseYamlDocuments,
	UNIQUE_KEY,
	type YamlCollector,
	type YamlEntry,
	type YamlLayout,
	type YamlMap,
	type YamlReading,
} from "./yaml-reading.js";

/** A document marker (`---`, `...`) or a directive (`%`) at the start of a line. */
const DOCUMENT_LEVEL = /(?:^|\n)(?:---|\.\.\.|%)/;

/** Characters a piece may not start with: indentation, an empty line, a byte order mark. */
function startsIndented(piece: string): boolean {
	const first = piece.charCodeAt(0);
	return first === 32 || first === 9 || first === 10 || first === 13 || first === 0xfeff;
}

/** The piece of the old text to read again: offsets, its mapping, and whether an entry follows it. */
interface Region {
	start: number;
	end: number;
	/** Where the old mapping's text ended (before the rest of its last line), when no entry follows. */
	limit: number;
	map: number;
	indent: number;
	nextEntry: boolean;
}

/** The region in one mapping whose last boundary before the change is entry `from`, if it holds the change. */
function regionIn(layout: YamlLayout, text: string, from: number, oldEnd: number): Region | undefined {
	const first = layout.entries[from] as YamlEntry;
	const map = layout.maps.get(first.map);
	if (!map) return undefined;
	const start = first.start - map.indent;
	for (let at = from + 1; at < layout.entries.length; at++) {
		const entry = layout.entries[at] as YamlEntry;
		if (entry.start >= map.end) break;
		if (entry.map === first.map && entry.boundary && entry.start - map.indent >= oldEnd) {
			const end = entry.start - map.indent;
			return { start, end, limit: end, map: first.map, indent: map.indent, nextEntry: true };
		}
	}
	// A mapping that ends on an empty value stops before its line's end: the piece takes the rest of
	// the line (spaces, a comment) so that it ends at the end of a line.
	let end = map.end;
	const lineEnd = text.indexOf("\n", end);
	if (lineEnd !== -1 && onlyComments(text, end, lineEnd)) end = lineEnd + 1;
	if (end < oldEnd) return undefined;
	return { start, end, limit: map.end, map: first.map, indent: map.indent, nextEntry: false };
}

/** The regions of the mappings that hold the change `start`..`oldEnd` of the old text, innermost first. */
function regionsOf(layout: YamlLayout, text: string, start: number, oldEnd: number): Region[] {
	const lastBoundary = new Map<number, number>();
	for (let at = 0; at < layout.entries.length; at++) {
		const entry = layout.entries[at] as YamlEntry;
		if (entry.start > start) break;
		if (entry.boundary) lastBoundary.set(entry.map, at);
	}
	const regions: Region[] = [];
	for (const [id, from] of lastBoundary) {
		if ((layout.maps.get(id)?.end ?? -1) + 1 < start) continue;
		const region = regionIn(layout, text, from, oldEnd);
		if (region && region.start <= start) regions.push(region);
	}
	return regions.sort((left, right) => right.indent - left.indent);
}

/**
 * The piece with `indent` columns taken from each line, and where each of its offsets was; undefined
 * when a line is less indented (other than a line of spaces).
 */
function unindented(piece: string, indent: number): { text: string; place: (offset: number) => number } | undefined {
	if (indent === 0) return { text: piece, place: (offset) => offset };
	const lines = piece.split("\n");
	const pad = " ".repeat(indent);
	const starts: number[] = [];
	const removed: number[] = [];
	let at = 0;
	let total = 0;
	const kept = lines.map((line) => {
		let cut = indent;
		if (!line.startsWith(pad)) {
			if (!/^ *\r?$/.test(line)) return undefined;
			cut = line.length - (line.endsWith("\r") ? 1 : 0);
		}
		starts.push(at);
		total += cut;
		removed.push(total);
		at += line.length - cut + 1;
		return line.slice(cut);
	});
	if (kept.some((line) => line === undefined)) return undefined;
	return {
		text: kept.join("\n"),
		place: (offset) => {
			let line = 0;
			while (line + 1 < starts.length && (starts[line + 1] as number) <= offset) line++;
			return offset + (removed[line] as number);
		},
	};
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
	// A change at the edge of a nested mapping (a line less indented added after it) is read in the
	// mapping around it; a piece that reads with errors sends the change to the whole read.
	for (const region of regionsOf(layout, last.text, span.start, span.oldEnd)) {
		const read = readRegion(layout, text, region, span.newEnd - span.oldEnd);
		if (read !== OUTWARD) return read;
	}
	return undefined;
}

/** A region's piece could not be read in its mapping: the mapping around it may read it. */
const OUTWARD = Symbol("outward");

/** Reads a region's new text alone: the new reading, OUTWARD, or undefined (read the whole text). */
function readRegion(
	layout: YamlLayout,
	text: string,
	region: Region,
	delta: number,
): YamlReading | undefined | typeof OUTWARD {
	const newEnd = region.end + delta;
	const original = text.slice(region.start, newEnd);
	if (original !== "" && newEnd < text.length && !original.endsWith("\n")) return OUTWARD;
	if (DOCUMENT_LEVEL.test(original)) return undefined;
	const cut = unindented(original, region.indent);
	if (!cut || startsIndented(cut.text)) return OUTWARD;
	// Moved left, a line `  ...` or `  ---` of the piece would end its document.
	if (region.indent > 0 && DOCUMENT_LEVEL.test(cut.text)) return undefined;
	// A mapping's last entry may end on a block scalar, which would take in a more indented line
	// after it (a comment the old text held apart): such a line sends the change to the whole read.
	if (!region.nextEntry && newEnd < text.length) {
		let column = 0;
		while (text.charCodeAt(newEnd + column) === 32) column++;
		const next = text.charCodeAt(newEnd + column);
		if (column > region.indent && next !== 10 && next !== 13 && !Number.isNaN(next)) return OUTWARD;
	}
	const piece = cut.text;
	const documents = parseYamlDocuments(piece);
	if (documents.length > 1 || documents.some((document) => document.errors.length > 0)) return undefined;
	if (!documentsCover(piece, documents)) return undefined;
	const into: YamlCollector = {
		text: piece,
		entries: [],
		maps: new Map(),
		nextMap: layout.nextMap,
		place: (offset) => region.start + cut.place(offset),
		indent: region.indent,
		first: region.map,
	};
	const document = documents[0];
	if (document && document.contents !== null) {
		collectMaps(document.contents, into);
		// The piece must be one mapping whose first key starts the piece or a line after comments.
		const head = into.entries[0];
		if (into.first !== undefined || into.keyless || !head || head.map !== region.map) return OUTWARD;
		if (head.start !== region.start + region.indent && !(original.charCodeAt(region.indent) === 35 && head.boundary)) {
			return OUTWARD;
		}
		if (into.maps.get(region.map)?.indent !== region.indent) return OUTWARD;
	} else if (!region.nextEntry) {
		// Only comments left: the mapping would end elsewhere (or vanish).
		return OUTWARD;
	}
	const inRegion = (entry: YamlEntry) => entry.start >= region.start && entry.start < region.end;
	if (duplicates(layout.entries, region.map, inRegion, into.entries)) return undefined;
	const maps = movedMaps(layout.maps, region, delta, into.maps);
	if (!maps) return undefined;
	const entries: YamlEntry[] = [];
	for (const entry of layout.entries) {
		if (entry.start >= region.end) break;
		if (!inRegion(entry)) entries.push(entry);
	}
	entries.push(...into.entries);
	for (const entry of layout.entries) {
		if (entry.start >= region.end) entries.push(delta === 0 ? entry : { ...entry, start: entry.start + delta });
	}
	return { problems: [], incomplete: false, layout: { entries, maps, nextMap: into.nextMap } };
}

/**
 * The mappings after the change: those before it kept, those after it moved, those around it
 * longer or shorter, those inside it replaced by the piece's; undefined when one overlaps the
 * piece's edge (the layout does not say enough). A mapping that ended with the piece ends where
 * the piece's mapping now ends.
 */
function movedMaps(
	old: ReadonlyMap<number, YamlMap>,
	region: Region,
	delta: number,
	read: ReadonlyMap<number, YamlMap>,
): Map<number, YamlMap> | undefined {
	const maps = new Map<number, YamlMap>();
	const pieceEnd = read.get(region.map)?.end;
	const endOf = (end: number) => (end < region.end && pieceEnd !== undefined ? pieceEnd : end + delta);
	for (const [id, map] of old) {
		if (id === region.map || (map.start < region.start && map.end >= region.limit)) {
			maps.set(id, { ...map, end: endOf(map.end) });
		} else if (map.start >= region.end) {
			maps.set(id, { ...map, start: map.start + delta, end: map.end + delta });
		} else if (map.start < region.start && map.end <= region.start) {
			maps.set(id, map);
		} else if (map.start < region.start) {
			return undefined;
		}
	}
	for (const [id, map] of read) {
		const kept = maps.get(id);
		if (id === region.map && kept) maps.set(id, { ...kept, start: Math.min(kept.start, map.start) });
		else if (id !== region.map) maps.set(id, map);
	}
	return maps;
}

/** Whether a new entry's key equals a key of its mapping outside the replaced entries. */
function duplicates(
	entries: readonly YamlEntry[],
	map: number,
	inRegion: (entry: YamlEntry) => boolean,
	added: readonly YamlEntry[],
): boolean {
	const keys = new Set<unknown>();
	for (const entry of entries) if (entry.map === map && !inRegion(entry)) keys.add(entry.key);
	return added.some((entry) => entry.map === map && entry.key !== UNIQUE_KEY && keys.has(entry.key));
}
