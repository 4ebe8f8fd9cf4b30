// The processes of a language server's tree, read from /proc: to show that none outlives its session.
import { readdirSync } from "node:fs";
import { isRunning, readProcStat } from "../../src/workspace/local/process/proc-stat.js";

/** `root` and every process below it (tsserver under typescript-language-server). */
export function processTree(root: number): number[] {
	const children = new Map<number, number[]>();
	for (const entry of readdirSync("/proc")) {
		const pid = Number(entry);
		if (!Number.isInteger(pid)) continue;
		const info = readProcStat(pid);
		if (info) children.set(info.parentPid, [...(children.get(info.parentPid) ?? []), pid]);
	}
	const tree = [root];
	for (let index = 0; index < tree.length; index++) tree.push(...(children.get(tree[index] ?? -1) ?? []));
	return tree;
}

/**
 * The pids of `pids` that are still running. A zombie waiting to be reaped has ended, and so has a
 * process in its exit teardown (`PF_EXITING`): it never runs its program again, though a server
 * with a large heap stays listed for a while on a busy machine (the product's own definition).
 */
export function stillRunning(pids: readonly number[]): number[] {
	return pids.filter((pid) => {
		const info = readProcStat(pid);
		return info !== undefined && isRunning(info);
	});
}
