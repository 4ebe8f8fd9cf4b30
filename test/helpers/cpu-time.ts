/**
 * CPU time this process has used since `start` (from `process.cpuUsage()`), in ms. A bound on
 * the work a call does that other processes cannot break: a loaded machine stretches the wall
 * clock (we wait for a core, for the disk), not the CPU time we spend, so "linear, not
 * quadratic" is checked on this instead of `performance.now()`.
 */
export function cpuMsSince(start: NodeJS.CpuUsage): number {
	const used = process.cpuUsage(start);
	return (used.user + used.system) / 1000;
}
