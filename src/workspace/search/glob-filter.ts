import picomatch from "picomatch";

/** Tests relative POSIX paths against one glob, with ripgrep's `--glob` semantics. */
export type GlobTest = (relativePath: string, isDirectory: boolean) => boolean;

/**
 * Compiles a glob the way ripgrep reads `--glob` (gitignore style): without a `/` it matches
 * the name at any depth, with one it matches the path from the search root; a leading `/` or
 * `./` only anchors; a trailing `/` matches directories only. Dotfiles match like any file.
 */
export function compileGlob(glob: string): GlobTest {
	let pattern = glob.trim();
	const directoryOnly = pattern.endsWith("/");
	if (directoryOnly) pattern = pattern.slice(0, -1);
	const anchored = pattern.includes("/");
	pattern = pattern.replace(/^(\.?\/)+/, "");
	// `s`: picomatch writes `**` with `.`, which would stop at a newline in a folder's name (ripgrep does not).
	const matches = picomatch(pattern, { dot: true, flags: "s" });
	return (relativePath, isDirectory) => {
		if (directoryOnly && !isDirectory) return false;
		if (anchored) return matches(relativePath);
		const slash = relativePath.lastIndexOf("/");
		return matches(slash === -1 ? relativePath : relativePath.slice(slash + 1));
	};
}

/**
 * The part of a glob that a file's name alone must match (its last segment), when that is
 * well defined: `src/**\/*.test.ts` → `*.test.ts`, `*.ts` → `*.ts`. Undefined when the last
 * segment is `**`, or a brace group spans segments, or the glob names directories only.
 */
export function nameGlobOf(glob: string): string | undefined {
	const pattern = glob.trim();
	if (pattern.endsWith("/")) return undefined;
	if (/\{[^}]*\//.test(pattern)) return undefined;
	const name = pattern.slice(pattern.lastIndexOf("/") + 1);
	if (name === "" || name.includes("**")) return undefined;
	return name;
}
