// Preloaded into a child process by `peakMemoryEnv` (test/cli/helpers/peak-memory.ts): prints the
// process's peak resident memory on stderr as it exits, however it exits (process.exit included).
// On Linux the peak is VmHWM, that of the process's own memory since it started: getrusage's maxRSS
// keeps the peak of the process it was forked from across the exec, so a child of a test worker
// of 280 MB reported 280 MB whatever it used itself.
function peakKilobytes() {
	try {
		const found = /^VmHWM:\s*(\d+) kB$/m.exec(require("node:fs").readFileSync("/proc/self/status", "utf8"));
		if (found) return Number(found[1]);
	} catch {}
	return process.resourceUsage().maxRSS;
}
process.on("exit", () => {
	try {
		require("node:fs").writeSync(2, `\ntoolbelt-test-peak-rss-kb ${peakKilobytes()}\n`);
	} catch {}
});
