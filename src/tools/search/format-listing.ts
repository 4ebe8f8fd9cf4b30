import { PathGroups } from "./sort-paths.js";

/** A sorted file listing cut to the output budget. */
export interface Listing {
	/** The paths shown, one per line. */
	text: string;
	/** How many paths are shown. */
	shownPaths: number;
	/** UTF-8 bytes of `text`. */
	shownBytes: number;
	/** UTF-8 bytes the whole listing would take. */
	totalBytes: number;
}

/**
 * Sorts `paths` and keeps the head that fits `maxLines` lines and `maxBytes` bytes (what
 * `truncateTail` would keep), sorting only as far as the budget reaches. At least one path is
 * shown, cut to the byte budget if it alone is longer.
 */
export function formatListing(
	paths: readonly string[] | PathGroups,
	budget: { maxLines: number; maxBytes: number },
): Listing {
	let groups = paths instanceof PathGroups ? paths : undefined;
	if (!groups) {
		groups = new PathGroups();
		for (const path of paths as readonly string[]) groups.add(path);
	}
	const shown: string[] = [];
	let shownBytes = 0;
	groups.walk((path) => {
		const bytes = Buffer.byteLength(path) + (shown.length > 0 ? 1 : 0);
		if (shown.length >= budget.maxLines || (shown.length > 0 && shownBytes + bytes > budget.maxBytes)) return false;
		shown.push(path);
		shownBytes += bytes;
		return true;
	});
	let text = shown.join("\n");
	if (shownBytes > budget.maxBytes) {
		text = Buffer.from(text)
			.subarray(0, budget.maxBytes)
			.toString("utf8")
			.replace(/\uFFFD$/, "");
		shownBytes = Buffer.byteLength(text);
	}
	// Everything shown: the listing is what was shown (before any cut of a single long path).
	const totalBytes = shown.length === groups.count ? Buffer.byteLength(shown.join("\n")) : groups.listingBytes();
	return { text, shownPaths: shown.length, shownBytes, totalBytes };
}
