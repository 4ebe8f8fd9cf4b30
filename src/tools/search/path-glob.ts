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
