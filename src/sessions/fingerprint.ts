import { createHash } from "node:crypto";
import type { ToolTarget } from "../engine/index.js";
import {
	type FileOperations,
	isNotFound,
	isWorkspaceTarget,
	partsOfTarget,
	type Workspace,
} from "../workspace/index.js";
import type { FileFingerprint } from "./records.js";

/**
 * Files larger than this get their size recorded but no hash: hashing a 600 MB log that a call
 * read 2,000 lines of would cost far more than the call. Default of `fingerprintFile`.
 */
export const DEFAULT_HASH_LIMIT_BYTES = 32 * 1024 * 1024;

const CHUNK_BYTES = 64 * 1024;

/** Streams a file through SHA-256 in fixed chunks: memory stays flat whatever its size. */
async function hashByReading(files: FileOperations, path: string): Promise<string> {
	if (files.hash) return files.hash(path);
	const hash = createHash("sha256");
	const file = await files.open(path);
	try {
		const buffer = new Uint8Array(CHUNK_BYTES);
		for (let position = 0; ; ) {
			const read = await file.read({ buffer, offset: 0, length: CHUNK_BYTES, position });
			if (read <= 0) break;
			hash.update(buffer.subarray(0, read));
			position += read;
		}
	} finally {
		await file.close();
	}
	return hash.digest("hex");
}

/**
 * Size and SHA-256 of the file at `path` (symlinks followed) through `files`; a folder or special
 * file by its kind alone, a missing file as `{ exists: false }`. Never throws: a file that cannot
 * be read is recorded with a note saying why.
 */
export async function fingerprintFile(
	files: FileOperations,
	path: string,
	hashLimitBytes = DEFAULT_HASH_LIMIT_BYTES,
): Promise<FileFingerprint> {
	try {
		const info = await files.stat(path);
		if (info.kind === "directory") return { exists: true, size: info.size, kind: "directory" };
		if (info.kind !== "file") return { exists: true, size: info.size, kind: "other" };
		if (info.size > hashLimitBytes)
			return { exists: true, size: info.size, note: `not hashed: larger than ${hashLimitBytes} bytes` };
		return { exists: true, size: info.size, sha256: await hashByReading(files, path) };
	} catch (error) {
		if (isNotFound(error)) return { exists: false };
		return { exists: true, size: -1, note: `not readable: ${error instanceof Error ? error.message : String(error)}` };
	}
}

/** A file a call's target names: its absolute path and the workspace to read it through. */
export interface TargetFile {
	path: string;
	access: "read" | "write";
	workspace: Workspace | undefined;
}

/**
 * The files a call reads or changes, from its target (each part of a multi-file call). Listing,
 * search and commands name no single file: what a command changes is not fingerprinted.
 */
export function filesOfTarget(target: ToolTarget | undefined): TargetFile[] {
	const found: TargetFile[] = [];
	for (const part of partsOfTarget(target)) {
		if (!part || (part.access !== "read" && part.access !== "write") || part.path === undefined) continue;
		const workspace = isWorkspaceTarget(part) ? part.workspace : undefined;
		const path = isWorkspaceTarget(part)
			? (part.resolved?.absolutePath ?? part.workspace.lexicalPath(part.path))
			: part.path;
		found.push({ path, access: part.access, workspace });
	}
	return found;
}
