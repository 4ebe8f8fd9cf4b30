import { existsSync } from "node:fs";
import { dirname, join } from "node:path";

/** What ripgrep reads in the folders above the search root: ignore files, and a repository's own excludes. */
const IGNORE_SOURCES = [".gitignore", ".ignore", ".rgignore", ".git"];

/**
 * True when some folder above `root` holds an ignore file or a `.git` (whose `info/exclude` and
 * `.gitignore` then apply below it). When none does, ripgrep may skip its parent-folder ignore
 * matching (`--no-ignore-parent`) with the same result, which saves it work on every file listed
 * (about a fifth of a 20,000-file listing). A handful of `stat` calls, so it is checked per search.
 */
export function hasIgnoreSourcesAbove(root: string): boolean {
	let folder = dirname(root);
	for (;;) {
		if (IGNORE_SOURCES.some((name) => existsSync(join(folder, name)))) return true;
		const parent = dirname(folder);
		if (parent === folder) return false;
		folder = parent;
	}
}
