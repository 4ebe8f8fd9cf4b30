// Preloaded into a child process by `peakMemoryEnv` (test/cli/helpers/peak-memory.ts): prints the
// process's peak resident memory on stderr as it exits, however it exits (process.exit included).
process.on("exit", () => {
	try {
		require("node:fs").writeSync(2, `\ntoolbelt-test-peak-rss-kb ${process.resourceUsage().maxRSS}\n`);
	} catch {}
});
