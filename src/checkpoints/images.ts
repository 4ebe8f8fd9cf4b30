import { keptMode } from "../workspace/index.js";
import type { CheckpointEntry, CheckpointFileAccess } from "./file-access.js";
import { CheckpointStore, type FileImage } from "./store.js";

/**
 * The image of a file whose content is not read: its size and mode. Its `blob` names no content
 * (nothing is stored under it); `sameImage` compares sizes too, so it never equals the image of a
 * file of another size, whatever that file holds.
 */
function unreadImage(info: CheckpointEntry): FileImage {
	const blob = CheckpointStore.hashOf(new TextEncoder().encode(`toolbelt: not read, ${info.size} bytes`));
	return { kind: "file", blob, mode: info.mode, size: info.size };
}

/** Options of `imageOf`. */
export interface ImageOptions {
	/**
	 * A file larger than this is not read (see `unreadImage`): it may be a sparse terabyte a
	 * command made in no time (`truncate -s 1T`), whose hash took hours, and the store could not
	 * keep its content anyway. Two such files are told apart by size and mode only, so a change
	 * that keeps both is not seen — only past the store's bound, which the file tools do not reach.
	 */
	maxBytes: number;
	/**
	 * The images the result will only be compared with (undo's before and after): a file whose
	 * size none of them has cannot equal one, so it is not read either. Without it a planted file
	 * just under `maxBytes` in each of thousands of written names cost undo terabytes of hashing.
	 * Default: none (every file up to `maxBytes` is hashed: an after-image, kept for later).
	 */
	comparedWith?: readonly FileImage[];
}

/** True when a file of `size` may equal one of `images` (none given: any may). */
function sizeCanMatch(size: number, images: readonly FileImage[] | undefined): boolean {
	return images === undefined || images.some((image) => image.kind === "file" && image.size === size);
}

/**
 * What is at `path` now (the link itself for a symlink), read through `files`; for a file only
 * its hash, taken where the file lives (an after-image, to compare with later), and only when it
 * can matter (see `ImageOptions`).
 */
export async function imageOf(files: CheckpointFileAccess, path: string, options: ImageOptions): Promise<FileImage> {
	const info = await files.entry(path);
	if (!info || info.kind === "other") return { kind: "absent" };
	if (info.kind === "symlink") return { kind: "symlink", target: await files.readlink(path) };
	if (info.size > options.maxBytes || !sizeCanMatch(info.size, options.comparedWith)) return unreadImage(info);
	return { kind: "file", blob: await files.hash(path), mode: info.mode, size: info.size };
}

/** A before-image and, for a file, the content it names (stored only if the call changes the file). */
export interface CapturedImage {
	image: FileImage;
	bytes?: Uint8Array;
}

/**
 * What is at `path` now with a file's content held in memory: it goes into the store only when
 * the call changed the file, so a call that was refused or changed nothing leaves no content behind.
 * A file larger than `maxBytes` (what the store keeps at most) is not read at all (see
 * `ImageOptions.maxBytes`); undo then says its content was not kept.
 */
export async function captureOf(files: CheckpointFileAccess, path: string, maxBytes: number): Promise<CapturedImage> {
	const info = await files.entry(path);
	if (!info || info.kind === "other") return { image: { kind: "absent" } };
	if (info.kind === "symlink") return { image: { kind: "symlink", target: await files.readlink(path) } };
	if (info.size > maxBytes) return { image: unreadImage(info) };
	const bytes = await files.readFile(path);
	return { image: { kind: "file", blob: CheckpointStore.hashOf(bytes), mode: info.mode, size: bytes.length }, bytes };
}

/** Whether two images show the same state (content, mode, link target, absence). */
export function sameImage(left: FileImage, right: FileImage): boolean {
	if (left.kind !== right.kind) return false;
	if (left.kind === "file" && right.kind === "file") {
		// The size too: an unread image's `blob` is derived from its size alone (see `unreadImage`).
		return left.blob === right.blob && left.mode === right.mode && left.size === right.size;
	}
	if (left.kind === "symlink" && right.kind === "symlink") return left.target === right.target;
	return true;
}

/**
 * Puts `path` back to `image` through `files`: removed, relinked, or its content and mode written
 * (atomically), set-user-ID and set-group-ID dropped (`keptMode`: undo makes the file anew, as
 * the user undoing, not as its owner before).
 */
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
	await files.putFile(path, await store.getBlob(image.blob), keptMode(image.mode));
}
