// A change to a JSON file that parsed is checked by reading only the items it touched (issue 28:
// ≤ 5 ms for a 2,000-line file). JSON's grammar is context-free: in the innermost object or array
// holding the change, the items from the last comma before the change to the first comma after it
// can be read alone, with one stand-in item on each side for the unchanged items around them. When
// that piece reads clean, ending on its own comma at the same depth, the whole new text reads clean;
// when it does not, the whole text is parsed for the errors' places and words (the refusal's path).
import { changedSpan } from "../changed-span.js";
import { type JsonOptions, type JsonReading, JsonToken, type JsonTokens, scanJson } from "./json-reading.js";
import type { KeptReading } from "./kept-readings.js";

/** Where the piece to read again lies in the old text, and which old tokens it replaces. */
interface Region {
	/** Offsets of the piece in the old text. */
	start: number;
	end: number;
	/** Old tokens `from`..`to` (exclusive) lie in the piece. */
	from: number;
	to: number;
	object: boolean;
	/** Whether a comma of the container starts / ends the piece (items stand beyond it). */
	commaBefore: boolean;
	commaAfter: boolean;
}

/** The piece of the old text around `start`..`oldEnd` to read again, or undefined (no container holds it). */
function regionOf(tokens: JsonTokens, start: number, oldEnd: number): Region | undefined {
	const { starts, ends, kinds } = tokens;
	const count = kinds.length;
	// The containers open at the change, and each one's last comma before it.
	const open: number[] = [];
	const lastComma: number[] = [];
	let at = 0;
	for (; at < count && (ends[at] ?? 0) <= start; at++) {
		const kind = kinds[at];
		if (kind === JsonToken.OpenObject || kind === JsonToken.OpenArray) {
			open.push(at);
			lastComma.push(-1);
		} else if (kind === JsonToken.Close) {
			open.pop();
			lastComma.pop();
		} else if (kind === JsonToken.Comma) lastComma[lastComma.length - 1] = at;
	}
	// Containers the changed tokens close cannot hold the change.
	let depth = open.length;
	let lowest = depth;
	for (; at < count && (starts[at] ?? 0) < oldEnd; at++) {
		const kind = kinds[at];
		if (kind === JsonToken.OpenObject || kind === JsonToken.OpenArray) depth++;
		else if (kind === JsonToken.Close) lowest = Math.min(lowest, --depth);
	}
	if (lowest === 0) return undefined;
	const container = open[lowest - 1] ?? 0;
	const before = lastComma[lowest - 1] ?? -1;
	for (; at < count; at++) {
		const kind = kinds[at];
		if (kind === JsonToken.OpenObject || kind === JsonToken.OpenArray) depth++;
		else if (kind === JsonToken.Comma && depth === lowest) break;
		else if (kind === JsonToken.Close && depth-- === lowest) break;
	}
	if (at === count) return undefined;
	const commaAfter = kinds[at] === JsonToken.Comma;
	return {
		start: before === -1 ? (ends[container] ?? 0) : (starts[before] ?? 0),
		end: commaAfter ? (ends[at] ?? 0) : (starts[at] ?? 0),
		from: before === -1 ? container + 1 : before,
		to: commaAfter ? at + 1 : at,
		object: kinds[container] === JsonToken.OpenObject,
		commaBefore: before !== -1,
		commaAfter,
	};
}

/**
 * The reading of `text` derived from the clean reading of `last` by reading only the part the change
 * touched; undefined when it cannot say without a whole parse (`last` had errors, the change is
 * outside every object and array, or the touched part does not read clean).
 */
export function updatedJsonReading(
	last: KeptReading & { reading: JsonReading },
	text: string,
	options: JsonOptions,
): JsonReading | undefined {
	const tokens = last.reading.tokens;
	if (!tokens || last.reading.problems.length > 0) return undefined;
	const span = changedSpan(last.text, text);
	const region = regionOf(tokens, span.start, span.oldEnd);
	if (!region) return undefined;
	const delta = span.newEnd - span.oldEnd;
	const stand = region.object ? '"":0' : "0";
	const head = (region.object ? "{" : "[") + (region.commaBefore ? stand : "");
	const piece = text.slice(region.start, region.end + delta);
	const pieceEnd = head.length + piece.length;
	// The piece must end where its own comma ends, at the container's depth: not inside a string
	// or comment that the stand-in after it would close.
	let endsOnComma = false;
	const { errors, tokens: read } = scanJson(
		head + piece + (region.commaAfter ? stand : "") + (region.object ? "}" : "]"),
		options,
		(offset, depth) => {
			if (offset === pieceEnd - 1 && depth === 1) endsOnComma = true;
		},
	);
	if (errors.length > 0 || (region.commaAfter && !endsOnComma)) return undefined;
	return { problems: [], incomplete: false, tokens: spliced(tokens, region, read, head.length, delta) };
}

/** The new text's tokens: the old ones with the piece's tokens in place of those it replaced. */
function spliced(
	old: JsonTokens,
	region: Region,
	read: { starts: Int32Array; ends: Int32Array; kinds: Uint8Array; length: number },
	headLength: number,
	delta: number,
): JsonTokens {
	const pieceEnd = headLength + (region.end + delta - region.start);
	let first = 0;
	while (first < read.length && (read.starts[first] ?? 0) < headLength) first++;
	let last = first;
	while (last < read.length && (read.starts[last] ?? 0) < pieceEnd) last++;
	const added = last - first;
	const after = old.kinds.length - region.to;
	const size = region.from + added + after;
	const starts = new Int32Array(size);
	const ends = new Int32Array(size);
	const kinds = new Uint8Array(size);
	starts.set(old.starts.subarray(0, region.from));
	ends.set(old.ends.subarray(0, region.from));
	kinds.set(old.kinds.subarray(0, region.from));
	const move = region.start - headLength;
	for (let index = 0; index < added; index++) {
		starts[region.from + index] = (read.starts[first + index] ?? 0) + move;
		ends[region.from + index] = (read.ends[first + index] ?? 0) + move;
	}
	kinds.set(read.kinds.subarray(first, last), region.from);
	const tail = region.from + added;
	starts.set(old.starts.subarray(region.to), tail);
	ends.set(old.ends.subarray(region.to), tail);
	kinds.set(old.kinds.subarray(region.to), tail);
	if (delta !== 0) {
		for (let index = tail; index < size; index++) {
			starts[index] = (starts[index] as number) + delta;
			ends[index] = (ends[index] as number) + delta;
		}
	}
	return { starts, ends, kinds };
}
