import { createHash } from "node:crypto";
import { posix } from "node:path";
import type { RemoteWorkspace } from "../workspace/remote/index.js";
import { runRemote } from "../workspace/remote/index.js";
import type { CheckpointFileAccess } from "./file-access.js";

/** A name that no longer exists (or whose folder does not): the image is "absent". */
function isMissing(error: unknown): boolean {
	const code = (error as { code?: unknown } | undefined)?.code;
	return code === "ENOENT" || code === "ENOTDIR";
}

/** Replaces whatever is at "$1" with a symlink to "$2" (the file operations have no symlink call). */
const RELINK_SCRIPT = 'rm -f -- "$1" && ln -s -- "$2" "$1"';

/**
 * `CheckpointFileAccess` through a remote workspace: metadata, content and hashes come from its
 * file operations (the hash computed on the remote side, so a "changed since" check moves no
 * content), restores are its atomic `replaceFile` (temp file and rename there). Only a missing
 * name counts as absent: a dropped connection rejects, so it is never recorded as "no file".
 */
export function remoteCheckpointFiles(workspace: RemoteWorkspace): CheckpointFileAccess {
	const files = workspace.files;
	const entry: CheckpointFileAccess["entry"] = async (path) => {
		try {
			const info = await files.lstat(path);
			const kind = info.kind === "file" || info.kind === "symlink" ? info.kind : "other";
			return { kind, mode: info.mode & 0o7777, size: info.size };
		} catch (error) {
			if (isMissing(error)) return undefined;
			throw error;
		}
	};
	const remove = async (path: string) => {
		try {
			await files.unlink(path);
		} catch (error) {
			if (!isMissing(error)) throw error;
		}
	};
	return {
		entry,
		readlink: (path) => files.readlink(path),
		readFile: (path) => files.readFile(path),
		hash: async (path) => {
			if (files.hash) return files.hash(path);
			return createHash("sha256")
				.update(await files.readFile(path))
				.digest("hex");
		},
		putFile: async (path, bytes, mode) => {
			// A rename onto a symlink to a folder would land inside that folder: the link goes first.
			if ((await entry(path))?.kind === "symlink") await remove(path);
			if (files.replaceFile) return files.replaceFile(path, bytes, { mode, exactMode: true });
			const temp = posix.join(posix.dirname(path), `.${posix.basename(path)}.undo.tmp`);
			await files.writeFile(temp, bytes, { mode });
			await files.chmod(temp, mode);
			await files.rename(temp, path);
		},
		putSymlink: async (path, target) => {
			const result = await runRemote(workspace.transport, RELINK_SCRIPT, [path, target]);
			if (result.exitCode !== 0) {
				throw new Error(`Could not relink '${path}' to '${target}' on ${workspace.label}: ${result.stderr.trim()}`);
			}
		},
		remove,
		posixPaths: true,
		// Remote paths are POSIX whatever this machine is.
		makeParentFolder: (path) => files.mkdir(posix.dirname(path), { recursive: true }),
	};
}
