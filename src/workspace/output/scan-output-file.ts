import { open } from "node:fs/promises";
import { collapseRepeats, ImportantLines, keptBlock } from "./semantic-tail.js";

const CHUNK_BYTES = 1024 * 1024;
/** Bytes scanned at each end of a huge output (~0.2 s each); the middle is skipped. */
export const SCAN_EDGE_BYTES = 48 * 1024 * 1024;

/** The stretch `[from, to)` a scan of the first `end` bytes of an output skips: its middle, when huge (else empty). */
export function skippedStretch(end: number): { from: number; to: number } {
	return end > 2 * SCAN_EDGE_BYTES ? { from: SCAN_EDGE_BYTES, to: end - SCAN_EDGE_BYTES } : { from: end, to: end };
}

/**
 * Scans toolbelt's own full-output file (a temp file the shell wrote, never a workspace file) up
 * to `end`, the start of the tail the model sees, for the lines worth keeping. One reusable
 * buffer: memory stays flat however large the file is.
 */
export async function importantLinesOfFile(path: string, end: number): Promise<ImportantLines> {
	const important = new ImportantLines();
	const handle = await open(path, "r");
	try {
		const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
		// A huge output is scanned at its start and its end only, so the cost stays bounded.
		const { from: skipFrom, to: skipTo } = skippedStretch(end);
		for (let position = 0; position < end; ) {
			if (position === skipFrom && skipTo > skipFrom) {
				important.skip(skipTo - skipFrom);
				position = skipTo;
			}
			const { bytesRead } = await handle.read(
				buffer,
				0,
				Math.min(CHUNK_BYTES, end - position, position < skipFrom ? skipFrom - position : end - position),
				position,
			);
			if (bytesRead === 0) break;
			important.scan(buffer.subarray(0, bytesRead));
			position += bytesRead;
		}
	} finally {
		await handle.close();
	}
	return important;
}

/**
 * The model's view of a cut output with semantic truncation: near-identical runs in the tail
 * collapsed, and the kept lines of the cut part put before it, saying where the rest is.
 */
export function withKeptLines(tailText: string, important: ImportantLines, where: string): string {
	const collapsed = collapseRepeats(tailText).text;
	const kept = important.keptOutside(collapsed);
	const extent = { unscannedBytes: important.unscannedBytes, unexamined: important.unexamined };
	return keptBlock(kept, important.seenOutside(collapsed), where, extent) + collapsed;
}
