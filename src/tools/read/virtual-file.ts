import type { ReadableFile } from "../../workspace/index.js";
import { readWhole } from "./read-whole.js";

/** Most bytes taken from a kernel file that reports size 0 (/proc/…/maps of a large process is ~1 MB). */
export const VIRTUAL_MAX_BYTES = 4 * 1024 * 1024;

/** Kernel files that report a size of 0 whatever they hold, and are generated when read. */
export function isVirtualFile(absolutePath: string, size: number): boolean {
	return size === 0 && /^\/(proc|sys)\//.test(absolutePath);
}

/** Kernel files that block until an event happens: reading them would never end. */
export function blocksWhenRead(absolutePath: string): boolean {
	return /(^\/proc\/kmsg$|\/trace_pipe(_raw)?$|^\/sys\/kernel\/debug\/)/.test(absolutePath);
}

/**
 * The content of a kernel file read through its open handle (its `size` says nothing), up to
 * `VIRTUAL_MAX_BYTES`, as an in-memory `ReadableFile` the line pager can page like any file.
 */
export async function snapshotVirtualFile(
	file: ReadableFile,
	signal: AbortSignal | undefined,
): Promise<{ file: ReadableFile; size: number; cut: boolean }> {
	const bytes = await readWhole(file, VIRTUAL_MAX_BYTES + 1, signal);
	const kept = bytes.subarray(0, VIRTUAL_MAX_BYTES);
	const snapshot: ReadableFile = {
		read: async ({ buffer, offset, length, position }) => {
			const end = Math.min(kept.length, position + length);
			if (position >= end) return 0;
			kept.copy(buffer, offset, position, end);
			return end - position;
		},
		close: async () => {},
	};
	return { file: snapshot, size: kept.length, cut: bytes.length > VIRTUAL_MAX_BYTES };
}
