import { execFile } from "node:child_process";
import { open, stat } from "node:fs/promises";
import { findTrustedProgram } from "../../workspace/local/index.js";
import { countNewlines as countNewlinesIn } from "../read/newline-count.js";

/**
 * Counts `\n` bytes in a whole buffer, as the read tool counts a file's: sixteen bytes per step in
 * WebAssembly from 4 KiB on (see `newline-count.ts`). A command's output of hundreds of KB is
 * counted as its call ends; in a process's first call a count in JavaScript ran in V8's interpreter
 * and then its optimizing compiler, several ms of CPU for 600 KB.
 */
export function countNewlines(bytes: Uint8Array): number {
	return countNewlinesIn(bytes);
}

function countWithWc(path: string): Promise<number> {
	// Outside any sandbox: only a `wc` no sandboxed command can have planted.
	const wc = findTrustedProgram("wc");
	if (wc === undefined) return Promise.reject(new Error("no wc toolbelt may run"));
	return new Promise((resolve, reject) => {
		execFile(wc, ["-l", path], { encoding: "latin1", windowsHide: true }, (error, stdout) => {
			const count = Number.parseInt(stdout.trim().split(/\s+/)[0] ?? "", 10);
			if (error || !Number.isInteger(count)) reject(error ?? new Error(`unexpected wc output: ${stdout}`));
			else resolve(count);
		});
	});
}

async function countWithReads(path: string, limit: number): Promise<number> {
	const handle = await open(path, "r");
	try {
		const block = Buffer.allocUnsafe(1024 * 1024);
		let count = 0;
		let position = 0;
		while (position < limit) {
			const { bytesRead } = await handle.read(block, 0, Math.min(block.length, limit - position), position);
			if (bytesRead === 0) break;
			count += countNewlines(block.subarray(0, bytesRead));
			position += bytesRead;
		}
		return count;
	} finally {
		await handle.close();
	}
}

/** Up to this size a file is counted in JavaScript: cheaper than starting `wc`. */
const countInProcessBytes = 8 * 1024 * 1024;

/**
 * Counts `\n` bytes in a file, or exactly in its first `limit` bytes (a file that may still be
 * growing). A large whole file is counted by `wc -l` where it exists (native, several times faster
 * than JavaScript on gigabytes); anything else is read in blocks.
 */
export async function countFileNewlines(path: string, limit?: number): Promise<number> {
	if (limit === undefined && (await stat(path)).size > countInProcessBytes) {
		try {
			return await countWithWc(path);
		} catch {
			// No wc: count in JavaScript.
		}
	}
	return countWithReads(path, limit ?? Number.POSITIVE_INFINITY);
}
