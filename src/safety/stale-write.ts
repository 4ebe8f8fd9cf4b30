import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { canonicalPath } from "../engine/file-mutation-queue.js";
import type { ToolHooks } from "../engine/types.js";
import { toolTargetPath } from "../tools/fs/near-miss.js";
import { displayPath } from "../tools/fs/paths.js";

/** What the model last saw of a file. */
export interface FileSnapshot {
	/** SHA-256 of the content, or undefined for a file larger than the hashing limit. */
	hash?: string;
	/** Size in bytes. */
	size: number;
	/** Modification time, in ms. */
	mtimeMs: number;
}

/**
 * The per-workspace record of what the model has seen: one snapshot per file (keyed by canonical
 * path), taken after each successful read, write and edit. Share one instance between all tools
 * (and agents) that work on the same files.
 */
export class SeenFiles {
	private readonly snapshots = new Map<string, FileSnapshot>();

	/** The snapshot of a canonical path, if the model has seen the file. */
	get(key: string): FileSnapshot | undefined {
		return this.snapshots.get(key);
	}

	/** Records what the model has now seen of a file. */
	set(key: string, snapshot: FileSnapshot): void {
		this.snapshots.set(key, snapshot);
	}

	/** Forgets a file (e.g. after it was deleted). */
	delete(key: string): void {
		this.snapshots.delete(key);
	}

	/** How many files are recorded. */
	get size(): number {
		return this.snapshots.size;
	}
}

/** Options of `createStaleWriteHooks`. */
export interface StaleWriteOptions {
	/** The tools' working directory (relative paths are taken from here). */
	cwd: string;
	/** The record to use. Default: a new one (pass a shared one to share it between tool sets). */
	seenFiles?: SeenFiles;
	/** Let `write` replace an existing file the model never read. Default: false (refused). */
	allowWriteWithoutRead?: boolean;
	/** Files larger than this are compared by size and mtime only, not hashed, in bytes. Default: 64 MiB. */
	maxHashBytes?: number;
}

const DEFAULT_MAX_HASH_BYTES = 64 * 1024 * 1024;
const TRUST_STAT_ABOVE_BYTES = 1024 * 1024;

async function hashFile(path: string, size?: number): Promise<string> {
	const hash = createHash("sha256");
	// One read for a small file costs fewer thread-pool round trips than a stream.
	if (size !== undefined && size <= TRUST_STAT_ABOVE_BYTES) return hash.update(await readFile(path)).digest("hex");
	for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
	return hash.digest("hex");
}

/** Takes a snapshot of a regular file; undefined when it does not exist or is not a file. */
export async function snapshotFile(
	path: string,
	maxHashBytes = DEFAULT_MAX_HASH_BYTES,
): Promise<FileSnapshot | undefined> {
	const stats = await stat(path).catch(() => undefined);
	if (!stats?.isFile()) return undefined;
	const snapshot: FileSnapshot = { size: stats.size, mtimeMs: stats.mtimeMs };
	if (stats.size <= maxHashBytes) snapshot.hash = await hashFile(path, stats.size).catch(() => undefined);
	return snapshot;
}

/**
 * Hooks that refuse `edit` and `write` on a file that changed on disk since the model last saw
 * it, so an outside change (the user's editor, a formatter, another agent) is never overwritten
 * unseen. After each successful read, write and edit the file's hash is recorded, so the model's
 * own consecutive edits never trip the check, and a file merely touched (same content) does not
 * count as changed. `write` over an existing file the model never read is refused unless allowed.
 */
export function createStaleWriteHooks(options: StaleWriteOptions): ToolHooks & { seenFiles: SeenFiles } {
	const seenFiles = options.seenFiles ?? new SeenFiles();
	const maxHashBytes = options.maxHashBytes ?? DEFAULT_MAX_HASH_BYTES;
	const target = async (args: Record<string, unknown>) => {
		if (typeof args.path !== "string") return undefined;
		const path = await toolTargetPath(options.cwd, args.path);
		return { path, key: await canonicalPath(path), shown: displayPath(options.cwd, path) };
	};
	return {
		seenFiles,
		beforeToolCall: async ({ tool, args }) => {
			if (tool.name !== "edit" && tool.name !== "write") return undefined;
			const file = await target(args);
			if (!file) return undefined;
			const stats = await stat(file.path).catch(() => undefined);
			if (!stats?.isFile()) return undefined;
			const seen = seenFiles.get(file.key);
			if (!seen) {
				if (tool.name === "edit" || options.allowWriteWithoutRead) return undefined;
				return {
					block: true,
					reason:
						`${file.shown} already exists and you have not read it in this session, so write would replace content you have not seen. ` +
						"Read it first (then write or edit it), or use edit for a targeted change. The file was not modified.",
				};
			}
			// Same size and mtime is trusted only for big files: a same-size rewrite of a small file
			// within the clock's resolution must still be caught, and hashing it is cheap.
			const sameStat = seen.size === stats.size && seen.mtimeMs === stats.mtimeMs;
			if (sameStat && stats.size > TRUST_STAT_ABOVE_BYTES) return undefined;
			if (seen.hash === undefined && sameStat) return undefined;
			if (seen.hash !== undefined && stats.size <= maxHashBytes) {
				const current = await hashFile(file.path, stats.size).catch(() => undefined);
				if (current === seen.hash) {
					// Touched, not changed: remember the new mtime so the next check is cheap.
					seenFiles.set(file.key, { ...seen, size: stats.size, mtimeMs: stats.mtimeMs });
					return undefined;
				}
			}
			return {
				block: true,
				reason: `${file.shown} changed on disk since you last read it; read it again, then redo your change. The file was not modified, so the outside change is kept.`,
			};
		},
		afterToolCall: async ({ tool, args, isError }) => {
			if (isError || (tool.name !== "read" && tool.name !== "edit" && tool.name !== "write")) return undefined;
			const file = await target(args);
			if (!file) return undefined;
			const snapshot = await snapshotFile(file.path, maxHashBytes);
			if (snapshot) seenFiles.set(file.key, snapshot);
			else seenFiles.delete(file.key);
			return undefined;
		},
	};
}
