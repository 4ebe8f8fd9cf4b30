import { realpathSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";

/** Tail of each file's queue: resolves when the last queued mutation has finished. */
const queues = new Map<string, Promise<void>>();

/**
 * Key look-ups run one after another, so that mutations take their places in line in the order
 * they were called: otherwise a later call whose realpath resolves first would overtake an
 * earlier call to the same file. Only the look-up is serialized; the mutations themselves are not.
 */
let intake: Promise<unknown> = Promise.resolve();

/**
 * The key under which mutations of `path` are serialized: the realpath of the deepest existing
 * ancestor plus the remaining segments. So `a/f`, `./a/../a/f`, the absolute path and a path
 * through a symlinked directory agree, also for a file that does not exist yet.
 */
export async function canonicalPath(path: string): Promise<string> {
	const absolute = resolve(path);
	const rest: string[] = [];
	let current = absolute;
	for (;;) {
		try {
			// Synchronous: one system call, far cheaper than a round trip through the thread pool.
			const real = realpathSync.native(current);
			return rest.length === 0 ? real : join(real, ...rest.reverse());
		} catch {
			const parent = dirname(current);
			if (parent === current) return absolute;
			rest.push(basename(current));
			current = parent;
		}
	}
}

/** Options of `withFileMutationQueue`. */
export interface FileMutationQueueOptions {
	/**
	 * The canonical key, when the caller already resolved it (a workspace's `ResolvedPath.key`),
	 * possibly still being resolved: the place in line is taken at the call either way. Default:
	 * `canonicalPath(path)`.
	 */
	key?: string | Promise<string>;
}

/**
 * Runs `fn` when every earlier mutation of the same file has finished, and holds the slot until
 * `fn` has settled — also when it throws or its caller was aborted, so the next writer never
 * overlaps I/O still in flight. Mutations of one file run in call order; mutations of different
 * files run concurrently.
 */
export async function withFileMutationQueue<T>(
	path: string,
	fn: () => Promise<T>,
	options: FileMutationQueueOptions = {},
): Promise<T> {
	const { key: given } = options;
	const lookup = intake.then(() =>
		given === undefined ? canonicalPath(path) : Promise.resolve(given).catch(() => canonicalPath(path)),
	);
	intake = lookup;
	const key = await lookup;
	const previous = queues.get(key) ?? Promise.resolve();
	let release: () => void = () => {};
	const done = new Promise<void>((resolveDone) => {
		release = resolveDone;
	});
	const tail = previous.then(() => done);
	queues.set(key, tail);
	try {
		await previous;
		return await fn();
	} finally {
		release();
		// The last one out removes the entry, so the map holds only files with work pending.
		if (queues.get(key) === tail) queues.delete(key);
	}
}

/** How many files currently have mutations queued or running (for tests and diagnostics). */
export function pendingFileMutationQueues(): number {
	return queues.size;
}
