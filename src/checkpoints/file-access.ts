import { createHash, randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import { chmod, lstat, mkdir, readFile, readlink, rename, rm, rmdir, symlink, writeFile } from "node:fs/promises";
import { dirname } from "node:path";

/** What is at a path, without following a symlink: its kind, permission bits and size. */
export interface CheckpointEntry {
	/** A regular file, a symlink, or anything else (a folder, a socket: not recorded). */
	kind: "file" | "symlink" | "other";
	/** The permission bits (`& 0o7777`). */
	mode: number;
	/** Bytes of content. */
	size: number;
}

/**
 * The file access checkpoints need, on whatever disk the workspace is: this machine's
 * (`localCheckpointFiles`) or a remote workspace's (`remoteCheckpointFiles`). Before-images are
 * read and restores written through it, so they act where the tools act.
 */
export interface CheckpointFileAccess {
	/** What is at `path` itself (a symlink is not followed); undefined when nothing is. */
	entry(path: string): Promise<CheckpointEntry | undefined>;
	/** The target text of the symlink at `path`. */
	readlink(path: string): Promise<string>;
	/** The whole content of the file at `path`. */
	readFile(path: string): Promise<Uint8Array>;
	/** The sha256 (hex) of the file's content, computed where the file lives. */
	hash(path: string): Promise<string>;
	/** Replaces whatever is at `path` (a symlink itself, not its target) with a file of `bytes` and `mode`, atomically. */
	putFile(path: string, bytes: Uint8Array, mode: number): Promise<void>;
	/** Replaces whatever is at `path` with a symlink to `target`. */
	putSymlink(path: string, target: string): Promise<void>;
	/** Removes the file or symlink at `path`; nothing when there is none. */
	remove(path: string): Promise<void>;
	/** Creates the folder `path` is in, and its missing parents. */
	makeParentFolder(path: string): Promise<void>;
	/**
	 * Optional: removes the folder at `path` when it is empty (not a link); true when it did,
	 * false when it holds entries or is not there. Undo takes back the folders a write made with it.
	 */
	removeFolder?(path: string): Promise<boolean>;
	/** Paths on this disk are POSIX whatever this machine is (a remote workspace). Default: this machine's kind. */
	posixPaths?: boolean;
	/**
	 * Optional: the real path of `path` (every link resolved, also for a missing file), as the
	 * restore's judge saw it. With `within`, undo confines each restore to the folder it judged.
	 */
	realPath?(path: string): Promise<string>;
	/**
	 * Optional: this access with every change confined to `folders` (real paths), checked at the
	 * point of use, so a folder swapped for a link (to `.git/hooks`, inside the workspace too)
	 * after the judge saw it cannot carry the write there. `makeParentFolder` keeps the outer roots.
	 */
	within?(folders: readonly string[]): CheckpointFileAccess;
}

/** `CheckpointFileAccess` on this machine's disk. */
export const localCheckpointFiles: CheckpointFileAccess = {
	entry: async (path) => {
		const info = await lstat(path).catch(() => undefined);
		if (!info) return undefined;
		const kind = info.isSymbolicLink() ? "symlink" : info.isFile() ? "file" : "other";
		return { kind, mode: info.mode & 0o7777, size: info.size };
	},
	readlink: (path) => readlink(path),
	readFile: (path) => readFile(path),
	// Streamed: a file may be larger than memory, or than the 2 GiB a Buffer can hold.
	hash: async (path) => {
		const hash = createHash("sha256");
		for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
		return hash.digest("hex");
	},
	putFile: async (path, bytes, mode) => {
		const temp = `${path}.${randomBytes(4).toString("hex")}.undo.tmp`;
		await writeFile(temp, bytes, { mode });
		await chmod(temp, mode);
		// A symlink now where a file was: replace the link itself, not what it points to.
		await rm(path, { force: true }).catch(() => {});
		await rename(temp, path);
	},
	putSymlink: async (path, target) => {
		await rm(path, { force: true });
		await symlink(target, path);
	},
	remove: (path) => rm(path, { force: true }),
	makeParentFolder: async (path) => {
		await mkdir(dirname(path), { recursive: true });
	},
	removeFolder: async (path) => {
		if (!(await lstat(path).catch(() => undefined))?.isDirectory()) return false;
		return rmdir(path).then(
			() => true,
			() => false,
		);
	},
};
