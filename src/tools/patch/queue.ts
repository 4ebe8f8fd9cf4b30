import { withFileMutationQueue } from "../../engine/index.js";

/**
 * Runs `fn` holding the mutation-queue slot of every file in `keys` at once. The slots are taken
 * in sorted order, so two calls that need overlapping sets of files can never wait on each other
 * in a circle; each file's writers still run in call order.
 */
export function withFileMutationQueues<T>(keys: readonly string[], fn: () => Promise<T>): Promise<T> {
	const sorted = [...new Set(keys)].sort();
	const hold = (index: number): Promise<T> => {
		const key = sorted[index];
		if (key === undefined) return fn();
		return withFileMutationQueue(key, () => hold(index + 1), { key });
	};
	return hold(0);
}
