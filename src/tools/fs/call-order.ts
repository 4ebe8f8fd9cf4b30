/** The last task queued per key: resolves when it has settled. */
const tails = new Map<string, Promise<void>>();

/**
 * Runs `task` once every earlier task with the same key has settled, in the order of the calls:
 * the place in line is taken synchronously, before any I/O. `withFileMutationQueue` serializes
 * by real path, which it must first look up, so two writes of one path issued back to back could
 * otherwise land in either order (the second one's look-up finishing first).
 */
export function inCallOrder<T>(key: string, task: () => Promise<T>): Promise<T> {
	const previous = tails.get(key) ?? Promise.resolve();
	const result = previous.then(task);
	const tail = result.then(
		() => {},
		() => {},
	);
	tails.set(key, tail);
	void tail.then(() => {
		if (tails.get(key) === tail) tails.delete(key);
	});
	return result;
}
