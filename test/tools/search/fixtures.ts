import { execFileSync } from "node:child_process";
import { constants } from "node:fs";
import { mkdir, open, readdir, readlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { ToolResult } from "../../../src/engine/types.js";
import { resultText } from "../../helpers/results.js";

/** The two backends every grep and find case runs against. */
export const backends = [
	{ name: "ripgrep", backend: "ripgrep" },
	{ name: "walker", backend: "walker" },
] as const;

/** Writes files (creating folders) from a map of relative path → content. */
export async function writeTree(root: string, files: Record<string, string>): Promise<void> {
	for (const [path, content] of Object.entries(files)) {
		const absolute = join(root, path);
		await mkdir(dirname(absolute), { recursive: true });
		await writeFile(absolute, content);
	}
}

/** The text of a tool result's first block. */
export function textOf(result: ToolResult): string {
	return resultText(result);
}

/** Creates a named pipe (reads from it block until a writer appears): a file that never ends. */
export function makeFifo(path: string): void {
	execFileSync("mkfifo", [path]);
}

/** Opens and closes the pipe's writing end if a reader still waits on it; does nothing otherwise. */
export async function releaseFifo(path: string): Promise<void> {
	try {
		const handle = await open(path, constants.O_WRONLY | constants.O_NONBLOCK);
		await handle.close();
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== "ENXIO") throw error;
	}
}

/**
 * Ids of the processes whose working directory is `dir` (Linux /proc), to prove that no
 * ripgrep outlives a search. Empty where /proc does not exist.
 */
export async function processesIn(dir: string): Promise<number[]> {
	let entries: string[];
	try {
		entries = await readdir("/proc");
	} catch {
		return [];
	}
	const found: number[] = [];
	for (const entry of entries) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			if ((await readlink(`/proc/${entry}/cwd`)) === dir) found.push(Number(entry));
		} catch {
			// gone, or not ours to inspect
		}
	}
	return found;
}

/** Waits (up to 5 s) until no process runs in `dir`; returns those still there at the end. */
export async function processesGoneFrom(dir: string): Promise<number[]> {
	let left = await processesIn(dir);
	for (let attempt = 0; attempt < 100 && left.length > 0; attempt++) {
		await new Promise((resolve) => setTimeout(resolve, 50));
		left = await processesIn(dir);
	}
	return left;
}
