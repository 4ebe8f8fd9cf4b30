/**
 * Milliseconds on a monotonic clock, for intervals and deadlines measured inside this process (the
 * wall clock may be set back or forward meanwhile). Not `performance.now()`: the first use of
 * `performance` in a process loads Node's `perf_hooks` (about 2 ms of CPU), which would land in
 * the first call of a process that had not touched it yet. One clock for the whole library, so no
 * path pays that load.
 */
export function monotonicMs(): number {
	const [seconds, nanoseconds] = process.hrtime();
	return seconds * 1e3 + nanoseconds / 1e6;
}
