import { resolve } from "node:path";

// Linux lets a process unlink or rename over a name that is a mount point in ANOTHER mount
// namespace, and then detaches that mount there (since 3.18). A sandbox keeps a protected file of
// a writable folder (`.envrc`, `.mcp.json`, a script a git config names) read-only by binding it
// onto itself: if this process then replaced that file by rename, every sandboxed command still
// running (a background job) would lose the bind and see the new file as a plain, writable file,
// and could write into it what the user just approved. So while a sandbox of this process holds
// such a bind, toolbelt's own writes to that name keep its inode: they overwrite in place.
// Counted per path: two calls of one sandbox, or two sandboxes, may hold the same name.
const held = new Map<string, number>();

/**
 * Records that a live sandbox has `paths` (absolute) bound onto themselves, until the returned
 * function is called (once; later calls do nothing). See `isBoundPath`.
 */
export function holdBoundPaths(paths: readonly string[]): () => void {
	const names = paths.map((path) => resolve(path));
	for (const name of names) held.set(name, (held.get(name) ?? 0) + 1);
	let released = false;
	return () => {
		if (released) return;
		released = true;
		for (const name of names) {
			const count = (held.get(name) ?? 1) - 1;
			if (count > 0) held.set(name, count);
			else held.delete(name);
		}
	};
}

/** True while a live sandbox of this process has `path` bound onto itself (`holdBoundPaths`). */
export function isBoundPath(path: string): boolean {
	return held.size > 0 && held.has(resolve(path));
}

/**
 * Throws `EBUSY` (as the kernel does for a mount point of the caller's own namespace) when `path`
 * is a name a live sandbox holds: removing it, renaming it or renaming over it would lift the
 * sandbox's read-only bind, and its running commands could then write the file put in its place.
 */
export function refuseBoundName(path: string, operation: "remove" | "rename" | "replace"): void {
	if (!isBoundPath(path)) return;
	throw Object.assign(
		new Error(
			`EBUSY: ${path} is kept read-only for a sandboxed command that is still running; to ${operation} it would let that command write the file that takes its place. Wait until the command or background job ends (bash_kill stops a job), then try again.`,
		),
		{ code: "EBUSY" },
	);
}
