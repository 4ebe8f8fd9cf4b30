import { localFileOperations } from "../local/index.js";
import { realPathOf } from "./real-path.js";

/**
 * The real path of `path` on this machine's disk, also for a file not created yet: `realPathOf`
 * over the local file operations, the same rule a local workspace's `resolve(path).key` follows.
 * So `a/f`, `./a/../a/f`, the absolute path and a path through a symlinked folder give one key
 * for the file mutation queue (`withFileMutationQueue(path, fn, { key: canonicalPath(path) })`).
 * A tool built from a workspace uses its workspace's key instead, which holds on a remote one too.
 */
export function canonicalPath(path: string): Promise<string> {
	return realPathOf(localFileOperations, path);
}
