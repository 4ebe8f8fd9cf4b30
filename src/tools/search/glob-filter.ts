import picomatch from "picomatch";

/** Tests relative POSIX paths against one glob, with ripgrep's `--glob` semantics. */
export type GlobTest = (relativePath: string, isDirectory: boolean) => boolean;

/**
 * Compiles a glob the way ripgrep reads `--glob` (gitignore style): without a `/` it matches
 * the name at any depth, with one it matches the path from the search root; a leading `/`
 * only anchors; a trailing `/` matches directories only. Dotfiles match like any file.
 */
export function compileGlob(glob: string): GlobTest {
	let pattern = glob.trim();
	const directoryOnly = pattern.endsWith("/");
	if (directoryOnly) pattern = pattern.slice(0, -1);
	const anchored = pattern.includes("/");
	if (pattern.startsWith("/")) pattern = pattern.slice(1);
	const matches = picomatch(pattern, { dot: true });
	return (relativePath, isDirectory) => {
		if (directoryOnly && !isDirectory) return false;
		if (anchored) return matches(relativePath);
		const slash = relativePath.lastIndexOf("/");
		return matches(slash === -1 ? relativePath : relativePath.slice(slash + 1));
	};
}
