/**
 * Where the kernel takes a path a command names. `path.resolve` folds `..` away with the name
 * before it; the kernel steps up from where that name leads: with `link -> /elsewhere/sub`,
 * `cat link/../x` opens `/elsewhere/x`, while `resolve` says `x` beside the link. A path judged
 * for a command (a file it reads, a file it writes) is the kernel's.
 */
import { realpath } from "node:fs/promises";
import { dirname, isAbsolute, join, resolve } from "node:path";

/**
 * The absolute path `path` (relative to `base`) opens: each `..` steps up from the real path of
 * what precedes it. Undefined when what precedes a `..` does not resolve (the command fails there,
 * or the command itself makes it first: the rules cannot tell where it would lead).
 */
export async function kernelPath(base: string, path: string): Promise<string | undefined> {
	const names = path.split("/");
	if (!names.includes("..")) return resolve(base, path);
	let current = isAbsolute(path) ? "/" : base;
	for (const name of names) {
		if (name === "" || name === ".") continue;
		if (name !== "..") {
			current = join(current, name);
			continue;
		}
		try {
			current = dirname(await realpath(current));
		} catch {
			return undefined;
		}
	}
	return current;
}
