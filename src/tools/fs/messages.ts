import { dirname } from "node:path";
import { errorMessage, ToolError } from "../../engine/index.js";
import {
	displayPath,
	errorCode,
	type FileOperations,
	notRegularFileMessage,
	shortenedPath,
	similarNames,
	symlinkLoopMessage,
} from "../../workspace/index.js";

/** What a "not found" error is about, for its wording. */
export interface NotFoundOptions {
	/** The tool's working directory, for showing paths. */
	cwd: string;
	/** The absolute path that does not exist. */
	absolutePath: string;
	/** File access, to look for close names. */
	operations: FileOperations;
	/** `File` or `Path` (ls). Default: `File`. */
	noun?: string;
}

/**
 * `File not found: <path>`, plus the close names that exist in the same folder, or a word on
 * the missing folder — so the model's next call can be right.
 */
export async function notFoundError(options: NotFoundOptions): Promise<ToolError> {
	const { cwd, absolutePath, operations } = options;
	const shown = displayPath(cwd, absolutePath);
	const link = await brokenLinkTarget(operations, absolutePath);
	if (link !== undefined) {
		return new ToolError(`${shown} is a broken symlink: its target ${link} does not exist.`, {
			path: shown,
			absolutePath,
			suggestions: [],
		});
	}
	let message = `${options.noun ?? "File"} not found: ${shown}`;
	const suggestions = await similarNames(operations, absolutePath);
	if (suggestions.length > 0) {
		message += `\nDid you mean: ${suggestions.map((suggestion) => displayPath(cwd, suggestion)).join(", ")}?`;
	} else if (!(await exists(operations, dirname(absolutePath)))) {
		message += `\nThe folder ${displayPath(cwd, dirname(absolutePath))} does not exist either. Use ls or find to locate the file.`;
	} else {
		message += "\nUse ls or find to locate the file.";
	}
	return new ToolError(message, { path: shown, absolutePath, suggestions });
}

/** The stored target of `path` when it is a symlink (the caller knows the target is missing). */
async function brokenLinkTarget(operations: FileOperations, path: string): Promise<string | undefined> {
	try {
		if ((await operations.lstat(path)).kind !== "symlink") return undefined;
		return await operations.readlink(path);
	} catch {
		return undefined;
	}
}

async function exists(operations: FileOperations, path: string): Promise<boolean> {
	try {
		await operations.stat(path);
		return true;
	} catch {
		return false;
	}
}

/** Turns a file-system failure into a sentence for the model: what failed and what to try. */
export function fileSystemErrorMessage(error: unknown, path: string, action: string): string {
	// Already written for the model (e.g. a symlink loop found while resolving the path).
	if (error instanceof ToolError) return error.message;
	// Some callers pass the argument as the model wrote it: shown short when it is past any real path.
	const shownPath = shortenedPath(path);
	switch (errorCode(error)) {
		case "EACCES":
		case "EPERM":
			return `Cannot ${action} ${shownPath}: permission denied. It may be read-only or belong to another user (check with ls -l); do not retry the same call.`;
		case "EISDIR":
			return `Cannot ${action} ${shownPath}: it is a directory. Give the path of a file (for a new file in it: ${shownPath.replace(/\/$/, "")}/<name>).`;
		case "ENOTDIR":
		case "EEXIST": // from creating a parent folder whose name is taken by a file
			return `Cannot ${action} ${shownPath}: a part of the path is a file, not a directory.`;
		case "ELOOP":
			return symlinkLoopMessage(shownPath, action);
		case "EINVAL":
			if (/not a regular file/.test(errorMessage(error))) return notRegularFileMessage(shownPath, action);
			return `Cannot ${action} ${shownPath}: ${errorMessage(error)}`;
		case "ENOSPC":
			return `Cannot ${action} ${shownPath}: no space left on the device. The file was left unchanged.`;
		case "EROFS":
			return `Cannot ${action} ${shownPath}: the file system is read-only.`;
		case "ENAMETOOLONG":
			return `Cannot ${action} ${shownPath}: the name is too long.`;
		default:
			return `Cannot ${action} ${shownPath}: ${errorMessage(error)}`;
	}
}
