import type { FileInfo } from "../../files/contract.js";

/** How long answers fetched together stay usable: the calls of one tool call, not the next call. */
const FRESH_MS = 25;

interface Described {
	stat?: FileInfo;
	lstat?: FileInfo;
	realpath?: string;
	at: number;
}

/**
 * What one remote `describe` brought back with a stat: the path's lstat and real path, which the
 * calls right after a stat ask next (resolving a target, then the tool itself). An answer is used
 * only within `FRESH_MS` of being read and until anything is changed through the workspace (a
 * write, rename, delete, chmod, mkdir or a shell command), so it is no staler than the same calls
 * a moment apart would be.
 */
export class MetadataCache {
	private readonly entries = new Map<string, Described>();

	/** Keeps the answers for `path`. */
	remember(path: string, described: Omit<Described, "at">): void {
		if (this.entries.size > 64) this.entries.clear();
		this.entries.set(path, { ...described, at: Date.now() });
	}

	/** A fresh answer for `path`, or undefined. */
	recall<TKey extends "stat" | "lstat" | "realpath">(path: string, key: TKey): Described[TKey] | undefined {
		const entry = this.entries.get(path);
		if (!entry) return undefined;
		if (Date.now() - entry.at > FRESH_MS) {
			this.entries.delete(path);
			return undefined;
		}
		return entry[key];
	}

	/** Forgets everything: something may have changed. */
	clear(): void {
		this.entries.clear();
	}
}
