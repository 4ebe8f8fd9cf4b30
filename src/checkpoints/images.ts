import type { CheckpointFileAccess } from "./file-access.js";
import type { CheckpointStore, FileImage } from "./store.js";

/**
 * What is at `path` now (the link itself for a symlink), read through `files`. With a store, a
 * file's content is kept in it (a before-image); without, only its hash is taken where the file
 * lives (an after-image, to compare with later).
 */
export async function imageOf(files: CheckpointFileAccess, path: string, store?: CheckpointStore): Promise<FileImage> {
	const info = await files.entry(path);
	if (!info || info.kind === "other") return { kind: "absent" };
	if (info.kind === "symlink") return { kind: "symlink", target: await files.readlink(path) };
	if (!store) return { kind: "file", blob: await files.hash(path), mode: info.mode, size: info.size };
	const bytes = await files.readFile(path);
	return { kind: "file", blob: await store.putBlob(bytes), mode: info.mode, size: bytes.length };
}

/** Whether two images show the same state (content, mode, link target, absence). */
export function sameImage(left: FileImage, right: FileImage): boolean {
	if (left.kind !== right.kind) return false;
	if (left.kind === "file" && right.kind === "file") return left.blob === right.blob && left.mode === right.mode;
	if (left.kind === "symlink" && right.kind === "symlink") return left.target === right.target;
	return true;
}

/** Puts `path` back to `image` through `files`: removed, relinked, or its content and mode written (atomically). */
export async function applyImage(
	files: CheckpointFileAccess,
	path: string,
	image: FileImage,
	store: CheckpointStore,
): Promise<void> {
	if (image.kind === "absent") {
		await files.remove(path);
		return;
	}
	await files.makeParentFolder(path);
	if (image.kind === "symlink") {
		await files.putSymlink(path, image.target);
		return;
	}
	await files.putFile(path, await store.getBlob(image.blob), image.mode);
}
