/**
 * The items of a stream whose module is loaded only when the first item is asked for: the
 * built-in walker and its line search (with re2js, ignore and picomatch behind them) are a fallback
 * or a remote workspace's search, and a process that never walks should not load them.
 */
export async function* loadedLazily<TItem>(load: () => Promise<AsyncIterable<TItem>>): AsyncIterable<TItem> {
	yield* await load();
}
