import { randomBytes } from "node:crypto";
import { chmod, lstat, mkdir, readFile, readlink, rename, rm, symlink, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { CheckpointStore, type FileImage } from "./store.js";

/**
 * What is at `path` now (the link itself for a symlink). With a store, a file's content is kept
 * in it (a before-image); without, only hashed (an after-image, to compare with later).
 */
export async function imageOf(path: string, store?: CheckpointStore): Promise<FileImage> {
	const info = await lstat(path).catch(() => undefined);
	if (!info) return { kind: "absent" };
	if (info.isSymbolicLink()) return { kind: "symlink", target: await readlink(path) };
	if (!info.isFile()) return { kind: "absent" };
	const bytes = await readFile(path);
	const blob = store ? await store.putBlob(bytes) : CheckpointStore.hashOf(bytes);
	return { kind: "file", blob, mode: info.mode & 0o7777, size: bytes.length };
}

/** Whether two images show the same state (content, mode, link target, absence). */
export function sameImage(left: FileImage, right: FileImage): boolean {
	if (left.kind !== right.kind) return false;
	if (left.kind === "file" && right.kind === "file") return left.blob === right.blob && left.mode === right.mode;
	if (left.kind === "symlink" && right.kind === "symlink") return left.target === right.target;
	return true;
}

/** Puts `path` back to `image`: removed, relinked, or its content and mode written (atomically). */
export async function applyImage(path: string, image: FileImage, store: CheckpointStore): Promise<void> {
	if (image.kind === "absent") {
		await rm(path, { force: true });
		return;
	}
	await mkdir(dirname(path), { recursive: true });
	if (image.kind === "symlink") {
		await rm(path, { force: true });
		await symlink(image.target, path);
		return;
	}
	const bytes = await store.getBlob(image.blob);
	const temp = `${path}.${randomBytes(4).toString("hex")}.undo.tmp`;
	await writeFile(temp, bytes, { mode: image.mode });
	await chmod(temp, image.mode);
	// A symlink now where a file was: replace the link itself, not what it points to.
	await rm(path, { force: true }).catch(() => {});
	await rename(temp, path);
}
