/**
 * What is known to vary between two runs of the same call, and is ignored when results are
 * compared (README, "Replay"): the workspace's own path (the replay may run in a clone elsewhere),
 * durations (`1.2 s`, `35ms`), dates and times (ISO 8601, `12:04:33`), process ids (`pid 4242`,
 * `[4242]`), temporary names (anything under a temp folder, `tmp.XXXXXX`, `toolbelt-XXXXXX`), and
 * background job ids. Everything else must match exactly.
 */
export function normalizeForReplay(text: string, workspaces: readonly string[]): string {
	let result = text;
	for (const workspace of [...workspaces].sort((left, right) => right.length - left.length)) {
		if (workspace.length > 1) result = result.split(workspace).join("<workspace>");
	}
	return result
		.replace(/\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?/g, "<time>")
		.replace(/\b\d{1,2}:\d{2}:\d{2}\b/g, "<time>")
		.replace(/\b\d+(\.\d+)?\s?(ms|s|sec|seconds|µs|us|ns|m)\b/g, "<duration>")
		.replace(/\bpid[ =:]?\s?\d+/gi, "pid <pid>")
		.replace(/\[\d{2,7}\]/g, "[<pid>]")
		.replace(/(\/(tmp|var\/tmp|dev\/shm)\/)[^\s'":)]+/g, "$1<temp>")
		.replace(/\b(tmp|toolbelt)[.-][A-Za-z0-9]{6,}\b/g, "$1-<temp>")
		.replace(/\bjob[ _-]?[0-9a-f]{4,}\b/gi, "job <id>");
}
