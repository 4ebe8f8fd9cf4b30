import { isAbsolute, relative, sep } from "node:path";
import { compileSegmentMatcher } from "./segment-matcher.js";

/** Where relative path patterns are anchored, and what `~` means. */
export interface PathPatternBase {
	/** The project root: `src/**` and `/src/**` are taken from here. */
	root: string;
	/** The home directory for `~/…` patterns. */
	homeDir: string;
	/** The real path of `root`, when it differs (a symlinked project): real paths are matched from here. Default: `root`. */
	realRoot?: string;
	/** The real path of `homeDir`, when it differs. Default: `homeDir`. */
	realHomeDir?: string;
}

/**
 * A gitignore-style path pattern as written in a rule specifier, e.g. `src/**`, `*.env`,
 * `/package.json` (anchored at the project root), `~/.ssh/**` (home), `//etc/**` (absolute).
 */
export interface PathPattern {
	/** The directory the pattern is relative to. */
	base: string;
	/** The same directory as a real path, when it differs (symlinks resolved). */
	realBase?: string;
	/** The pattern in gitignore syntax, relative to `base`; empty when it names `base` itself. */
	body: string;
	/** Tests a path relative to `base` (POSIX separators, no leading `./`). */
	test(relativePath: string): boolean;
}

/** Compiles a path specifier. `~/`, `//` and `/` anchor it; otherwise gitignore rules apply (`*.ts` at any depth). */
export function compilePathPattern(specifier: string, base: PathPatternBase): PathPattern {
	let anchorBase = base.root;
	let realBase = base.realRoot;
	let body = specifier.trim();
	if (body.startsWith("~/") || body === "~") {
		anchorBase = base.homeDir;
		realBase = base.realHomeDir;
		body = `/${body.slice(2)}`;
	} else if (body.startsWith("//")) {
		anchorBase = "/";
		realBase = undefined;
		body = `/${body.slice(2)}`;
	} else if (body.startsWith("./")) {
		body = `/${body.slice(2)}`;
	} else if (body === ".") {
		body = "/";
	}
	const namesBase = body === "/" || body === "";
	// Cut at its `/`s: a test's cost grows with the path's depth, not its square (undo of a file
	// 1,800 folders deep spent 1.5 s here).
	const matcher = namesBase ? undefined : compileSegmentMatcher(body);
	return {
		base: anchorBase,
		...(realBase !== undefined && realBase !== anchorBase ? { realBase } : {}),
		body: namesBase ? "" : body,
		test: (relativePath) => {
			if (relativePath === "") return namesBase;
			if (!matcher) return false;
			return matcher(relativePath);
		},
	};
}

/** True when `absolutePath` is at or below the pattern's base (as written or as a real path) and the pattern matches it. */
export function matchesPathPattern(pattern: PathPattern, absolutePath: string): boolean {
	for (const base of pattern.realBase === undefined ? [pattern.base] : [pattern.base, pattern.realBase]) {
		const relativePath = relativeInside(base, absolutePath);
		if (relativePath !== undefined && pattern.test(relativePath)) return true;
	}
	return false;
}

/**
 * True when the pattern may match some path strictly below `absoluteDirectory`, which a listing or
 * a recursive search of it would read. Errs towards true: it is false only when the pattern's base
 * lies apart from the directory, when the pattern names its base (at or above the directory), or
 * when the pattern is anchored (a `/` before its end) and a literal folder of it parts from the
 * directory's path.
 */
export function mayMatchBelow(pattern: PathPattern, absoluteDirectory: string): boolean {
	for (const base of pattern.realBase === undefined ? [pattern.base] : [pattern.base, pattern.realBase]) {
		const inside = relativeInside(base, absoluteDirectory);
		if (inside === undefined) {
			// The base lies below the directory: whatever the pattern matches lies below it too.
			if (relativeInside(absoluteDirectory, base) !== undefined) return true;
			continue;
		}
		if (pattern.body !== "" && bodyMayMatchBelow(pattern.body, inside)) return true;
	}
	return false;
}

/** `mayMatchBelow` for a gitignore body and a folder relative to its base (`""` for the base). */
function bodyMayMatchBelow(body: string, folder: string): boolean {
	const text = body.replace(/\/+$/, "");
	// A negation, or a pattern with no `/` before its end (`.env`, `*.pem`), may match at any depth.
	if (text.startsWith("!") || !text.includes("/")) return true;
	const segments = text.replace(/^\//, "").split("/");
	const folders = folder === "" ? [] : folder.split("/");
	for (let index = 0; index < Math.min(segments.length, folders.length); index++) {
		const segment = segments[index] as string;
		if (segment.includes("**")) return true;
		// A glob or an escape matches some folder name; the matcher ignores case.
		if (/[*?[\\]/.test(segment)) continue;
		if (segment.toLowerCase() !== (folders[index] as string).toLowerCase()) return false;
	}
	// The pattern names the directory, a folder above it (and so all below), or a path below it.
	return true;
}

/**
 * `absolutePath` relative to `directory` with `/` separators, `""` for the directory itself,
 * or undefined when it lies outside (`..`, another drive, or a sibling such as `/proj-evil`).
 */
export function relativeInside(directory: string, absolutePath: string): string | undefined {
	const relativePath = relative(directory, absolutePath);
	if (relativePath === "") return "";
	if (relativePath === ".." || relativePath.startsWith(`..${sep}`) || isAbsolute(relativePath)) return undefined;
	return relativePath.split(sep).join("/");
}

/**
 * The path specifier that names exactly `absolutePath` and nothing else: anchored at the project
 * root when inside it, absolute (`//…`) otherwise, with glob characters escaped.
 */
export function exactPathSpecifier(absolutePath: string, root: string): string {
	const inside = relativeInside(root, absolutePath);
	const escapeGlob = (path: string) => path.replace(/[\\*?[\]!#]/g, (char) => `\\${char}`);
	if (inside === "") return "/";
	if (inside !== undefined) return `/${escapeGlob(inside)}`;
	return `//${escapeGlob(absolutePath.split(sep).join("/").replace(/^\/+/, ""))}`;
}
