import { resolve } from "node:path";

/** Tail of each file's queue: resolves when the last queued mutation has finished. */
const queues = new Map<string, Promise<void>>();

/**
 * Key look-ups run one after another, so that mutations take their places in line in the order
 * they were called: otherwise a later call whose key resolves first would overtake an earlier
 * call to the same file. Only the look-up is serialized; the mutations themselves are not.
 */
let intake: Promise<unknown> = Promise.resolve();
/** Look-ups in `intake` not done yet: while there are none, a key given as a string takes its place at once. */
let lookupsPending = 0;

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

/** The key of a mutation, once every earlier call has taken its place in line. */
async function lookUp(path: string, given: string | Promise<string> | undefined): Promise<string> {
	lookupsPending++;
	const lookup = intake.then(() =>
		given === undefined ? resolve(path) : Promise.resolve(given).catch(() => resolve(path)),
	);
	intake = lookup;
	try {
		return await lookup;
	} finally {
		lookupsPending--;
	}
}

/**
 * Runs `fn` when every earlier mutation of the same file has finished, and holds the slot until
 * `fn` has settled — also when it throws or its caller was aborted, so the next writer never
 * overlaps I/O still in flight. Mutations of one file run in call order; mutations of different
 * files run concurrently. A key known already, with no earlier look-up pending, takes its place
 * and starts `fn` at once (a batch's write has its target resolved before it runs).
 */
export async function withFileMutationQueue<T>(
	path: string,
	fn: () => Promise<T>,
	options: FileMutationQueueOptions = {},
): Promise<T> {
	const { key: given } = options;
	const key = typeof given === "string" && lookupsPending === 0 ? given : await lookUp(path, given);
	const previous = queues.get(key);
	let release: () => void = () => {};
	// Settles after `fn` has, which is after `previous` has: the next mutation of the file waits for it.
	const done = new Promise<void>((resolveDone) => {
		release = resolveDone;
	});
	queues.set(key, done);
	try {
		if (previous) await previous;
		return await fn();
	} finally {
		release();
		// The last one out removes the entry, so the map holds only files with work pending.
		if (queues.get(key) === done) queues.delete(key);
	}
}

/** How many files currently have mutations queued or running (for tests and diagnostics). */
export function pendingFileMutationQueues(): number {
	return queues.size;
}
