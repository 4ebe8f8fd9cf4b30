import type { ToolTarget } from "../../engine/index.js";
import { isWorkspaceTarget } from "../../tools/index.js";

/** Largest file read to show what a write changes in it: beyond this the question shows the new lines only. */
const MAX_SHOWN_FILE_BYTES = 512 * 1024;

/**
 * The text a write would replace, read through the call's own workspace (the disk the tool
 * writes, local or remote), or undefined when there is none to compare with: a new file, not a
 * regular file (a FIFO would block the read), larger than 512 KB, binary, or unreadable.
 */
export async function replacedText(target: ToolTarget | undefined): Promise<string | undefined> {
	if (!isWorkspaceTarget(target)) return undefined;
	const info = target.resolved?.info;
	if (!target.resolved || info?.kind !== "file" || info.size > MAX_SHOWN_FILE_BYTES) return undefined;
	const { absolutePath } = target.resolved;
	// A file a read rule hides stays hidden here too.
	if (target.hides?.(absolutePath)) return undefined;
	try {
		const data = await target.workspace.filesFor(target).readFile(absolutePath);
		if (data.length > MAX_SHOWN_FILE_BYTES || data.includes(0)) return undefined;
		return data.toString("utf8");
	} catch {
		return undefined;
	}
}
