// The last reading of each file, kept for the next change: a change's "before" text is, most of the
// time, the "after" text of the change before it, so the parsers without incremental reading (JSON,
// TOML, HTML, YAML) read each text once instead of twice. Tree-sitter keeps its trees for the same
// reason (tree-sitter-reading.ts). Bounded like those: the 16 files used last.
import type { SyntaxReading } from "../problems.js";

const KEPT_FILES = 16;
const kept = new Map<string, KeptReading>();

/** A text and what reading it found. */
export interface KeptReading {
	text: string;
	reading: SyntaxReading;
}

/**
 * Reads `text` with `read`, or returns the reading kept for this file when its text is the same, or
 * the one `update` derives from the kept one without reading the whole text (a reader that can).
 */
export async function readKept(
	key: string,
	text: string,
	read: (text: string) => Promise<SyntaxReading>,
	update?: (last: KeptReading, text: string) => SyntaxReading | undefined,
): Promise<SyntaxReading> {
	const last = kept.get(key);
	if (last && last.text === text) {
		kept.delete(key);
		kept.set(key, last);
		return last.reading;
	}
	const reading = (last && update?.(last, text)) || (await read(text));
	kept.delete(key);
	kept.set(key, { text, reading });
	for (const oldest of kept.keys()) {
		if (kept.size <= KEPT_FILES) break;
		kept.delete(oldest);
	}
	return reading;
}
