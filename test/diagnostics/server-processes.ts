// The processes of a language server's tree, read from /proc: to show that none outlives its session.
import { readdirSync, readFileSync } from "node:fs";

function parentAndState(pid: number): { parent: number; state: string } | undefined {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
		// The command name (field 2) may hold spaces and parentheses: read after its last ")".
		const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
		return { state: fields[0] ?? "", parent: Number(fields[1]) };
	} catch {
		return undefined;
	}
}

/** `root` and every process below it (tsserver under typescript-language-server). */
export function processTree(root: number): number[] {
	const children = new Map<number, number[]>();
	for (const entry of readdirSync("/proc")) {
		const pid = Number(entry);
		if (!Number.isInteger(pid)) continue;
		const info = parentAndState(pid);
		if (info) children.set(info.parent, [...(children.get(info.parent) ?? []), pid]);
	}
	const tree = [root];
	for (let index = 0; index < tree.length; index++) tree.push(...(children.get(tree[index] ?? -1) ?? []));
	return tree;
}

/** The pids of `pids` that are still running (a zombie waiting to be reaped has ended). */
export function stillRunning(pids: readonly number[]): number[] {
	return pids.filter((pid) => {
		const info = parentAndState(pid);
		return info !== undefined && info.state !== "Z";
	});
}
