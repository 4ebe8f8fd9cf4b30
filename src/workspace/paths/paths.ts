import { homedir } from "node:os";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { cutMiddle } from "../../engine/index.js";
import { visibleName } from "./visible-name.js";

/** Expands a leading `~` or `~/` to the home directory (default: the user's); other paths are returned as they are. */
export function expandHome(path: string, homeDir?: string): string {
	// The home folder is asked for only when there is a `~` to expand (every tool path comes through here).
	if (path.charCodeAt(0) !== 0x7e) return path;
	if (path === "~") return homeDir ?? homedir();
	if (path.startsWith("~/") || path.startsWith(`~${sep}`)) return resolve(homeDir ?? homedir(), path.slice(2));
	return path;
}

/**
 * The absolute path a tool argument names: `~` expanded, relative paths taken from the tool's
 * `cwd`. Purely lexical; see the file tools for look-ups that tolerate near-miss names.
 */
export function resolveToolPath(cwd: string, path: string): string {
	const expanded = expandHome(path.trim() === "" ? "." : path);
	if (isAbsolute(expanded)) return resolve(expanded);
	// Mostly a plain name below a normal cwd (every call of a batch of writes): then the two joined are
	// already what `resolve` gives, which would walk the whole path again, a character at a time.
	const joined = cwd === "/" ? `/${expanded}` : `${cwd}/${expanded}`;
	return isNormalAbsolute(joined) ? joined : resolve(cwd, expanded);
}

/**
 * Characters of a shown path: PATH_MAX (4,096 bytes) and more. No call can open a longer path by
 * name, and a message that echoes the model's 200,000-character path helps nobody; its start and
 * end show which it was.
 */
const MAX_SHOWN_PATH = 4_096;

/**
 * How a result shows a path: relative to `cwd` with `/` when inside it, absolute otherwise, its
 * control characters escaped (`visibleName`); a path past `MAX_SHOWN_PATH` shows its start and end.
 */
export function displayPath(cwd: string, absolutePath: string): string {
	return shortenedPath(unboundedDisplayPath(cwd, absolutePath));
}

/** A path as a message shows it: past `MAX_SHOWN_PATH` characters, its start and end only. */
export function shortenedPath(shown: string): string {
	if (shown.length <= MAX_SHOWN_PATH) return shown;
	return cutMiddle(shown, { head: MAX_SHOWN_PATH / 4, tail: MAX_SHOWN_PATH / 4, noun: "path" }).text;
}

function unboundedDisplayPath(cwd: string, absolutePath: string): string {
	const relativePath = relativeInside(cwd, absolutePath) ?? relative(cwd, absolutePath);
	if (relativePath === "") return ".";
	// `..notes` is a name inside cwd; only `..` as a whole segment leaves it.
	const outside = relativePath === ".." || relativePath.startsWith(`..${sep}`) || isAbsolute(relativePath);
	// On Windows the backslash separates names (no name holds one): only the names are escaped.
	if (outside) return sep === "\\" ? absolutePath.split(sep).map(visibleName).join(sep) : visibleName(absolutePath);
	return visibleName(sep === "/" ? relativePath : relativePath.split(sep).join("/"));
}

/** A separator doubled, a `.` or `..` name, or a separator at the end: a path `resolve` would still change. */
const NOT_NORMAL = /\/\/|\/\.\.?(?:\/|$)|.\/$/;

/** True for an absolute POSIX path `resolve` would give back as it is (no `.`, `..`, doubled or trailing separator). */
export function isNormalAbsolute(path: string): boolean {
	return sep === "/" && path.charCodeAt(0) === 0x2f && !NOT_NORMAL.test(path);
}

/**
 * `relative(cwd, path)` for a POSIX path below `cwd`, both already normal (as `resolveToolPath`
 * gives them), by slicing: `relative` resolves both paths again, on every result a file tool shows.
 * Undefined for anything else, which `relative` then handles.
 */
function relativeInside(cwd: string, path: string): string | undefined {
	if (!path.startsWith(cwd) || (cwd !== "/" && path.charCodeAt(cwd.length) !== 0x2f)) return undefined;
	if (!isNormalAbsolute(cwd) || !isNormalAbsolute(path)) return undefined;
	return path.slice(cwd === "/" ? 1 : cwd.length + 1);
}
