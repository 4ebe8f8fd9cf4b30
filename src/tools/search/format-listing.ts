import { PathGroups, visibleName } from "../../workspace/index.js";

/** A sorted file listing cut to the output budget. */
export interface Listing {
	/** The paths shown, one per line. */
	text: string;
	/** How many paths are shown. */
	shownPaths: number;
	/** UTF-8 bytes of `text`. */
	shownBytes: number;
	/** How many paths the listing has: all of them, or the first `limit` in path order. */
	listedPaths: number;
	/** UTF-8 bytes the whole listing would take. */
	totalBytes: number;
}

/** Limits of a listing. */
export interface ListingBudget {
	/** Most lines shown. */
	maxLines: number;
	/** Most UTF-8 bytes shown. */
	maxBytes: number;
	/** Most paths listed: the first ones in path order. Default: all. */
	limit?: number;
}

/**
 * Sorts `paths`, lists the first `limit` of them in path order, and keeps the head that fits
 * `maxLines` lines and `maxBytes` bytes (what `truncateTail` would keep), sorting only as far as
 * it has to. At least one path is shown, cut to the byte budget if it alone is longer.
 */
export function formatListing(paths: readonly string[] | PathGroups, budget: ListingBudget): Listing {
	let groups = paths instanceof PathGroups ? paths : undefined;
	if (!groups) {
		groups = new PathGroups();
		for (const path of paths as readonly string[]) groups.add(path);
	}
	const listedPaths = Math.min(groups.count, budget.limit ?? Number.POSITIVE_INFINITY);
	// With a limit in force, the listing is the first `limit` paths: walk them all to size them.
	// Without, its size comes from the groups, and the walk stops where the budget does.
	const limited = listedPaths < groups.count;
	const shown: string[] = [];
	let shownBytes = 0;
	let budgetFull = false;
	let walked = 0;
	let listedBytes = 0;
	groups.walk((found) => {
		if (walked >= listedPaths) return false;
		const path = visibleName(found);
		walked++;
		const bytes = Buffer.byteLength(path) + (walked > 1 ? 1 : 0);
		listedBytes += bytes;
		if (!budgetFull) {
			const separator = shown.length > 0 ? 1 : 0;
			const lineBytes = bytes - (walked > 1 ? 1 : 0) + separator;
			budgetFull = shown.length >= budget.maxLines || (shown.length > 0 && shownBytes + lineBytes > budget.maxBytes);
			if (!budgetFull) {
				shown.push(path);
				shownBytes += lineBytes;
			}
		}
		return limited || !budgetFull;
	});
	let text = shown.join("\n");
	if (shownBytes > budget.maxBytes) {
		text = Buffer.from(text)
			.subarray(0, budget.maxBytes)
			.toString("utf8")
			.replace(/\uFFFD$/, "");
		shownBytes = Buffer.byteLength(text);
	}
	let totalBytes = listedBytes;
	if (!limited && shown.length < groups.count) totalBytes = groups.listingBytes();
	return { text, shownPaths: shown.length, shownBytes, listedPaths, totalBytes };
}
