import { resolve } from "node:path";

/** Tail of each file's queue: resolves when the last queued mutation has finished. */
const queues = new Map<string, Promise<void>>();

/**
 * Key look-ups run one after another, so that mutations take their places in line in the order
 * they were called: otherwise a later call whose key resolves first would overtake an earlier
 * call to the same file. Only the look-up is serialized; the mutations themselves are not.
 */
let intake: Promise<unknown> = Promise.resolve();

/** Options of `withFileMutationQueue`. */
export interface FileMutationQueueOptions {
	/**
	 * The canonical key: a workspace's `ResolvedPath.key` (its one real-path rule, on whatever
	 * machine the file lives), possibly still being resolved: the place in line is taken at the call
	 * either way. Default, and when the key fails: the absolute path as written, with no disk look-up
	 * (engine/ touches no disk), so two names of one file (a symlinked folder) share a line only with
	 * a key; on this machine's disk pass `{ key: canonicalPath(path) }` (toolbelt/workspace).
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
		given === undefined ? resolve(path) : Promise.resolve(given).catch(() => resolve(path)),
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
