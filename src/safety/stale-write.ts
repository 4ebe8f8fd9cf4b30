import type { ToolHooks, ToolTarget } from "../engine/index.js";
import {
	type FileOperations,
	infoIfExists,
	isWorkspaceTarget,
	localFileOperations,
	partsOfTarget,
	type ResolvedPath,
	type Workspace,
	type WorkspaceTarget,
} from "../tools/index.js";
import { fileHash } from "../workspace/index.js";

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
	/** The tools' working directory. @deprecated Unused: each call's target carries its resolved path. */
	cwd?: string;
	/** The record to use. Default: a new one (pass a shared one to share it between tool sets). */
	seenFiles?: SeenFiles;
	/** Let a whole-file write replace an existing file the model never read. Default: false (refused). */
	allowWriteWithoutRead?: boolean;
	/** Files larger than this are compared by size and mtime only, not hashed, in bytes. Default: 64 MiB. */
	maxHashBytes?: number;
}

const DEFAULT_MAX_HASH_BYTES = 64 * 1024 * 1024;
const TRUST_STAT_ABOVE_BYTES = 1024 * 1024;

/**
 * Takes a snapshot of a regular file; undefined when it does not exist or is not a file.
 * `files` is the disk it lives on. Default: `localFileOperations`.
 */
export async function snapshotFile(
	path: string,
	maxHashBytes = DEFAULT_MAX_HASH_BYTES,
	files: FileOperations = localFileOperations,
): Promise<FileSnapshot | undefined> {
	const info = await infoIfExists(files, path).catch(() => undefined);
	if (info?.kind !== "file") return undefined;
	const snapshot: FileSnapshot = { size: info.size, mtimeMs: info.mtimeMs };
	if (info.size <= maxHashBytes) snapshot.hash = await fileHash(files, path, info.size).catch(() => undefined);
	return snapshot;
}

/** The resolved file of a path target, with the disk it lives on. */
function fileOf(
	target: ToolTarget | undefined,
): { resolved: ResolvedPath; files: FileOperations; workspace: Workspace } | undefined {
	if (!isWorkspaceTarget(target) || !target.resolved) return undefined;
	return { resolved: target.resolved, files: target.workspace.filesFor(target), workspace: target.workspace };
}

/** The state of the stale-write unit, shared by its before and after hooks. */
interface StaleWriteState {
	seenFiles: SeenFiles;
	maxHashBytes: number;
	allowWriteWithoutRead: boolean;
}

/** Why a write of `target` must not run now, or undefined when it may. */
async function staleReason(state: StaleWriteState, target: WorkspaceTarget): Promise<string | undefined> {
	const file = fileOf(target);
	if (!file) return undefined;
	const { resolved, files } = file;
	const info = await infoIfExists(files, resolved.absolutePath).catch(() => undefined);
	if (info?.kind !== "file") return undefined;
	const seen = state.seenFiles.get(resolved.key);
	if (!seen) {
		if (target.partial || state.allowWriteWithoutRead) return undefined;
		return (
			`${resolved.display} already exists and you have not read it in this session, so write would replace content you have not seen. ` +
			"Read it first (then write or edit it), or use edit for a targeted change. The file was not modified."
		);
	}
	// Same size and mtime is trusted only for big files: a same-size rewrite of a small file
	// within the clock's resolution must still be caught, and hashing it is cheap.
	const sameStat = seen.size === info.size && seen.mtimeMs === info.mtimeMs;
	if (sameStat && info.size > TRUST_STAT_ABOVE_BYTES) return undefined;
	if (seen.hash === undefined && sameStat) return undefined;
	if (seen.hash !== undefined && info.size <= state.maxHashBytes) {
		const current = await fileHash(files, resolved.absolutePath, info.size).catch(() => undefined);
		if (current === seen.hash) {
			// Touched, not changed: remember the new mtime so the next check is cheap.
			state.seenFiles.set(resolved.key, { ...seen, size: info.size, mtimeMs: info.mtimeMs });
			return undefined;
		}
	}
	return `${resolved.display} changed on disk since you last read it; read it again, then redo your change. The file was not modified, so the outside change is kept.`;
}

/**
 * Hooks that refuse writes (whole-file writes and edits, by their target's access) of a file that
 * changed on disk since the model last saw it, so an outside change (the user's editor, a
 * formatter, another agent) is never overwritten unseen. After each successful read and write
 * the file's hash is recorded, so the model's own consecutive edits never trip the check, and a
 * file merely touched (same content) does not count as changed. A whole-file write over an
 * existing file the model never read is refused unless allowed; an edit (a `partial` write)
 * proves what it saw by matching it.
 */
export function createStaleWriteHooks(options: StaleWriteOptions = {}): ToolHooks & { seenFiles: SeenFiles } {
	const state: StaleWriteState = {
		seenFiles: options.seenFiles ?? new SeenFiles(),
		maxHashBytes: options.maxHashBytes ?? DEFAULT_MAX_HASH_BYTES,
		allowWriteWithoutRead: options.allowWriteWithoutRead ?? false,
	};
	return {
		seenFiles: state.seenFiles,
		beforeToolCall: async ({ target }) => {
			// Every file of a multi-file call (apply_patch): one stale file refuses the call whole.
			for (const part of partsOfTarget(target)) {
				if (part?.access !== "write" || !isWorkspaceTarget(part)) continue;
				const reason = await staleReason(state, part);
				if (reason !== undefined) return { block: true, reason };
			}
			return undefined;
		},
		afterToolCall: async ({ target, isError }) => {
			if (isError) return undefined;
			for (const part of partsOfTarget(target)) {
				if (part?.access !== "read" && part?.access !== "write") continue;
				const file = fileOf(part);
				if (!file) continue;
				const snapshot = await snapshotFile(file.resolved.absolutePath, state.maxHashBytes, file.files);
				if (snapshot) state.seenFiles.set(file.resolved.key, snapshot);
				else state.seenFiles.delete(file.resolved.key);
			}
			return undefined;
		},
	};
}
