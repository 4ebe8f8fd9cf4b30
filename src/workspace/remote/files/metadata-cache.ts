import { monotonicMs } from "../../../engine/index.js";
import type { FileInfo } from "../../files/contract.js";
import { isInsideRoot } from "../../paths/real-path.js";

/** How long answers fetched together stay usable: the calls of one tool call, not the next call. */
const FRESH_MS = 25;

interface Described {
	stat?: FileInfo;
	lstat?: FileInfo;
	realpath?: string;
	/** The sha256 of a small regular file, and the roots (one per line, or empty) it was read under. */
	hash?: { hex: string; roots: string };
	/** When they were read (a `monotonicMs()` reading). */
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
		this.entries.set(path, { ...described, at: monotonicMs() });
	}

	/** A fresh answer for `path`, or undefined. */
	recall<TKey extends "stat" | "lstat" | "realpath" | "hash">(path: string, key: TKey): Described[TKey] | undefined {
		const entry = this.entries.get(path);
		if (!entry) return undefined;
		if (monotonicMs() - entry.at > FRESH_MS) {
			this.entries.delete(path);
			return undefined;
		}
		return entry[key];
	}

	/**
	 * A fresh hash of `path` for operations confined to `roots` (one per line, or empty): one read
	 * under the same roots, or an unconfined one of a file whose real path (read with it) lies in
	 * one of them — as the confined read would have judged it a moment apart.
	 */
	recallHash(path: string, roots: string): string | undefined {
		const hash = this.recall(path, "hash");
		if (!hash) return undefined;
		if (hash.roots === roots) return hash.hex;
		const real = this.recall(path, "realpath");
		if (hash.roots !== "" || real === undefined) return undefined;
		return roots.split("\n").some((root) => isInsideRoot(root, real)) ? hash.hex : undefined;
	}

	/** Forgets everything: something may have changed. */
	clear(): void {
		this.entries.clear();
	}
}
