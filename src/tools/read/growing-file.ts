import { formatSize } from "../../engine/index.js";
import type { FileOperations } from "../../workspace/index.js";

/**
 * The file's size now, when it is larger than `size` (the size the read began with); undefined
 * when it has not grown or cannot be looked at again. A read pages only the bytes that were there
 * when it began: a file a process keeps appending to (a log, `yes > file`) never reaches its end,
 * so reading up to the end would last as long as the writer.
 */
export async function grownSize(
	operations: FileOperations,
	absolutePath: string,
	size: number,
): Promise<number | undefined> {
	try {
		const now = await operations.stat(absolutePath);
		return now.kind === "file" && now.size > size ? now.size : undefined;
	} catch {
		return undefined;
	}
}

/** The notice for a page of a file that grew while it was read: what the page covers and how to see the rest. */
export function growingNotice(options: {
	shownPath: string;
	size: number;
	grownTo: number;
	/** The offset to read from next. */
	nextOffset: number;
}): string {
	const { shownPath, size, grownTo, nextOffset } = options;
	return (
		`[${shownPath} is growing: it held ${formatSize(size)} when this read began and ${formatSize(grownTo)} when it ended. ` +
		`Lines are counted up to the first ${formatSize(size)} only. Read again with offset=${nextOffset} for what was appended, ` +
		"or follow its end via bash (tail -n 50).]"
	);
}
