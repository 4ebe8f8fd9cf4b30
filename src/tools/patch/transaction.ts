import { ToolError } from "../../engine/index.js";
import { type FileOperations, isNotFound, writeFileAtomic } from "../../workspace/index.js";
import { fileSystemErrorMessage } from "../fs/messages.js";

/** One file a transaction changes, with what it held before. */
export interface FileChange {
	/** The absolute path written or removed. */
	absolutePath: string;
	/** How messages show it. */
	display: string;
	/** The new content, or undefined to remove the file. */
	content: Buffer | undefined;
	/** What the file held before, or undefined when it did not exist. */
	before: Buffer | undefined;
	/** Its permission bits before (restored with the content). */
	beforeMode: number | undefined;
}

/** Puts one file back as it was before the transaction. */
async function restore(files: FileOperations, change: FileChange): Promise<void> {
	if (change.before === undefined) {
		await files.unlink(change.absolutePath).catch((error: unknown) => {
			if (!isNotFound(error)) throw error;
		});
		return;
	}
	await writeFileAtomic(change.absolutePath, change.before, { operations: files });
	if (change.beforeMode !== undefined) await files.chmod(change.absolutePath, change.beforeMode);
}

async function apply(files: FileOperations, change: FileChange, flush: boolean): Promise<void> {
	if (change.content === undefined) await files.unlink(change.absolutePath);
	else await writeFileAtomic(change.absolutePath, change.content, { operations: files, flush });
}

/**
 * Applies every change in order, each file atomically; when one fails, the ones already applied
 * are put back (in reverse order) and a `ToolError` says what failed and what was restored, so
 * the files end either all changed or all as they were. Call it holding every file's mutation slot.
 */
export async function applyAllOrNothing(
	files: FileOperations,
	changes: readonly FileChange[],
	options: { flush?: boolean } = {},
): Promise<void> {
	const done: FileChange[] = [];
	for (const change of changes) {
		try {
			await apply(files, change, options.flush ?? false);
			done.push(change);
		} catch (error) {
			const reason = fileSystemErrorMessage(error, change.display, change.content === undefined ? "delete" : "write");
			const unrestored: string[] = [];
			for (const applied of done.reverse()) {
				await restore(files, applied).catch(() => unrestored.push(applied.display));
			}
			const back =
				unrestored.length === 0
					? done.length === 0
						? "No file was changed."
						: `The patch was rolled back: ${done.map((item) => item.display).join(", ")} ${done.length === 1 ? "is" : "are"} as before, so no file was changed.`
					: `Rolling back failed for ${unrestored.join(", ")}: check ${unrestored.length === 1 ? "it" : "them"} by hand (the other files are as before).`;
			throw new ToolError(`${reason} ${back}`, { reason: "write-failed", path: change.display, unrestored });
		}
	}
}
