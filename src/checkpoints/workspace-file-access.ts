import * as nativePath from "node:path";
import {
	type FileOperations,
	fileHash,
	infoIfExists,
	isNotFound,
	type Workspace,
	type WorkspaceTarget,
} from "../workspace/index.js";
import type { CheckpointFileAccess } from "./file-access.js";

/** Options of `checkpointFilesOf`. */
export interface CheckpointFilesOptions {
	/**
	 * Real paths of the folders restores may change anything in. Every restore (a file put back, a
	 * link relinked, a file removed, a folder made) then goes through the workspace's confined
	 * operations, which judge the object really used (its folder, entered or opened), so a folder
	 * swapped for a link to `.git/hooks`, `$HOME` or anywhere else between the check and the write
	 * cannot carry it outside. Default: none (restores are not confined: only for a caller that judges them itself).
	 */
	roots?: readonly string[];
	/** Paths on this disk are POSIX whatever this machine is (a remote workspace). Default: this machine's kind. */
	posixPaths?: boolean;
}

/** What a restore writes through: the workspace's confined operations when `roots` are given. */
function writerOf(workspace: Workspace, roots: readonly string[] | undefined): FileOperations {
	if (!roots) return workspace.files;
	const target: WorkspaceTarget = { access: "write", workspace, confinedTo: roots };
	return workspace.filesFor(target);
}

/**
 * `CheckpointFileAccess` through a workspace, local or remote: before-images are read and every
 * restore is written through its file operations, so undo acts on the disk the tools act on and,
 * with `roots`, only inside them, judged at the point of use (see `CheckpointFilesOptions.roots`).
 * A file is put back by a temp file renamed over the name (atomic, and a hard link there is
 * replaced, never written through: the file's other names keep their content). Only a missing name
 * counts as absent: a dropped connection rejects, so it is never recorded as "no file".
 */
export function checkpointFilesOf(workspace: Workspace, options: CheckpointFilesOptions = {}): CheckpointFileAccess {
	const files = workspace.files;
	const writer = writerOf(workspace, options.roots);
	const paths = options.posixPaths ? nativePath.posix : nativePath;
	const entry: CheckpointFileAccess["entry"] = async (path) => {
		const info = await infoIfExists(files, path, { noFollow: true });
		if (!info) return undefined;
		const kind = info.kind === "file" || info.kind === "symlink" ? info.kind : "other";
		return { kind, mode: info.mode & 0o7777, size: info.size };
	};
	const remove = async (path: string) => {
		try {
			await writer.unlink(path);
		} catch (error) {
			if (!isNotFound(error)) throw error;
		}
	};
	return {
		entry,
		readlink: (path) => files.readlink(path),
		readFile: (path) => files.readFile(path),
		hash: (path) => fileHash(files, path),
		putFile: async (path, bytes, mode) => {
			// A rename onto a symlink to a folder would land inside that folder: the link goes first.
			if ((await entry(path))?.kind === "symlink") await remove(path);
			if (writer.replaceFile) return writer.replaceFile(path, bytes, { mode, exactMode: true });
			const temp = paths.join(paths.dirname(path), `.${paths.basename(path)}.undo.tmp`);
			await writer.writeFile(temp, bytes, { mode });
			await writer.chmod(temp, mode);
			await writer.rename(temp, path);
		},
		putSymlink: async (path, target) => {
			if (!writer.symlink) {
				throw new Error(`This workspace cannot make symlinks, so the link ${path} → ${target} was not put back.`);
			}
			await remove(path);
			await writer.symlink(target, path);
		},
		remove,
		makeParentFolder: (path) => writer.mkdir(paths.dirname(path), { recursive: true }),
		...(writer.rmdir ? { removeFolder: (path: string) => removeEmptyFolder(writer, path) } : {}),
		posixPaths: options.posixPaths,
		realPath: (path) => workspace.realPath(path),
		within: (folders) => checkpointFilesOf(workspace, { ...options, roots: folders }),
	};
}

/** Removes the empty folder at `path` through `writer` (judged there); false when it holds entries or is gone. */
async function removeEmptyFolder(writer: FileOperations, path: string): Promise<boolean> {
	try {
		await writer.rmdir?.(path);
		return true;
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		if (isNotFound(error) || code === "ENOTEMPTY" || code === "EEXIST" || code === "ENOTDIR") return false;
		throw error;
	}
}
