import { homedir } from "node:os";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { visibleName } from "./visible-name.js";

/** Expands a leading `~` or `~/` to the home directory (default: the user's); other paths are returned as they are. */
export function expandHome(path: string, homeDir: string = homedir()): string {
	if (path === "~") return homeDir;
	if (path.startsWith("~/") || path.startsWith(`~${sep}`)) return resolve(homeDir, path.slice(2));
	return path;
}

/**
 * The absolute path a tool argument names: `~` expanded, relative paths taken from the tool's
 * `cwd`. Purely lexical; see the file tools for look-ups that tolerate near-miss names.
 */
export function resolveToolPath(cwd: string, path: string): string {
	const expanded = expandHome(path.trim() === "" ? "." : path);
	return isAbsolute(expanded) ? resolve(expanded) : resolve(cwd, expanded);
}

/**
 * How a result shows a path: relative to `cwd` with `/` when inside it, absolute otherwise, its
 * control characters escaped (`visibleName`).
 */
export function displayPath(cwd: string, absolutePath: string): string {
	const relativePath = relative(cwd, absolutePath);
	if (relativePath === "") return ".";
	// `..notes` is a name inside cwd; only `..` as a whole segment leaves it.
	const outside = relativePath === ".." || relativePath.startsWith(`..${sep}`) || isAbsolute(relativePath);
	// On Windows the backslash separates names (no name holds one): only the names are escaped.
	if (outside) return sep === "\\" ? absolutePath.split(sep).map(visibleName).join(sep) : visibleName(absolutePath);
	return visibleName(relativePath.split(sep).join("/"));
}
