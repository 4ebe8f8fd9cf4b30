import { symlink } from "node:fs/promises";
import { join } from "node:path";
import type { PathOrderedGrepOptions } from "../../../src/workspace/local/search/path-order/path-ordered-grep.js";
import { ripgrepGrep } from "../../../src/workspace/local/search/ripgrep-backend.js";
import { locateRipgrep } from "../../../src/workspace/local/search/ripgrep-path.js";
import type { GrepLine, GrepRequest } from "../../../src/workspace/search/types.js";

/**
 * What the tests of the local ripgrep's starts (the pair, the launcher, the ordered and the
 * path-ordered searches) share: the binary, the tree they search, the request and its answer.
 */

/** The bundled ripgrep's path; throws where there is none (these tests need a real one). */
export async function bundledRipgrep(): Promise<string> {
	const location = await locateRipgrep();
	if (location.path === undefined) throw new Error(`the bundled ripgrep is required: ${location.reason}`);
	return location.path;
}

/**
 * A fresh symlink in `dir` to the bundled ripgrep: a binary this process never started, so its
 * first search starts it directly (or through a pair), never through the launcher.
 */
export async function symlinkedRipgrep(dir: string): Promise<string> {
	const path = join(dir, `rg-${Math.random().toString(36).slice(2)}`);
	await symlink(await bundledRipgrep(), path);
	return path;
}

/** Every line of a search, its batches joined. */
export async function collectLines(batches: AsyncIterable<GrepLine[]>): Promise<GrepLine[]> {
	const lines: GrepLine[] = [];
	for await (const batch of batches) lines.push(...batch);
	return lines;
}

/**
 * A tree whose path order differs from string order (`a/x.txt` before `a-b.txt`), with one rare
 * line, and `many` files of one `hit` each in `many/`; `extra` adds or replaces files.
 */
export function pathOrderTree(many: number, extra: Record<string, string> = {}): Record<string, string> {
	const files: Record<string, string> = { "a-b.txt": "hit\n", "a/x.txt": "hit\nrare line\n" };
	for (let index = 0; index < many; index++) files[`many/f${index}.txt`] = `line\nhit ${index}\nline\n`;
	return { ...files, ...extra };
}

/** A literal, case-sensitive search of the folder `root` in path order, without context; `overrides` change any field. */
export function orderedRequest(root: string, pattern: string, overrides: Partial<GrepRequest> = {}): GrepRequest {
	return {
		root,
		pattern,
		literal: true,
		caseSensitive: true,
		context: 0,
		respectIgnoreFiles: true,
		pathOrder: true,
		...overrides,
	};
}

/** The lines of `ripgrepGrep` over `request` with `ordering`. */
export async function grepLines(
	rgPath: string,
	request: GrepRequest,
	ordering: PathOrderedGrepOptions = {},
): Promise<GrepLine[]> {
	return collectLines(await ripgrepGrep(rgPath, request, new AbortController().signal, undefined, ordering));
}

/** ripgrep --sort path's own answer: the every-thread search, tried first, holds nothing, so an ordered one answers alone. */
export function orderedAnswer(rgPath: string, request: GrepRequest): Promise<GrepLine[]> {
	return grepLines(rgPath, request, { everyThreadFirst: true, maxHeldLines: 0 });
}
