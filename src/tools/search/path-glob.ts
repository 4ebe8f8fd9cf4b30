import { relative } from "node:path";

/** A `path` argument that holds a glob, split into the folder before the glob and the glob. */
export interface PathGlob {
	/** The folder part, before the first segment with a glob character (`.` when there is none). */
	folder: string;
	/** The rest, anchored to `folder` (`src/*.ts` → `/*.ts`: direct children only, as written). */
	glob: string;
}

const GLOB_CHARACTERS = /[*?[\]{}]/;

/**
 * Models often put the file filter into `path` (`src/**\/*.ts`). Returns the folder and the glob,
 * or undefined when no segment holds a glob character. Callers use it only when no such path
 * exists: a folder may really be called `[id]`.
 */
export function splitPathGlob(path: string): PathGlob | undefined {
	const segments = path.replaceAll("\\", "/").split("/");
	const first = segments.findIndex((segment) => GLOB_CHARACTERS.test(segment));
	if (first === -1) return undefined;
	const folder = segments.slice(0, first).join("/") || (path.startsWith("/") ? "/" : ".");
	return { folder, glob: `/${segments.slice(first).join("/")}` };
}

/**
 * Globs are relative to the searched folder, but models often write them from the working
 * directory (`path: "src"`, `include: "src/**\/*.ts"`) or as absolute paths. A glob that starts
 * with the searched folder, spelled either way, is made relative to it (and anchored there).
 */
export function rebaseGlob(glob: string, folders: { cwd: string; root: string }): string {
	const pattern = glob.trim().replace(/^(\.\/)+/, "");
	const root = folders.root.replaceAll("\\", "/");
	const fromCwd = relative(folders.cwd, folders.root).replaceAll("\\", "/");
	for (const prefix of [root, fromCwd]) {
		if (prefix === "" || prefix === "/" || prefix.startsWith("..")) continue;
		if (pattern.startsWith(`${prefix}/`) && pattern.length > prefix.length + 1) {
			return pattern.slice(prefix.length);
		}
	}
	return glob;
}
