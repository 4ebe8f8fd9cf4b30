import { ToolError } from "../../engine/index.js";
import type { ResolvedPath, WorkspaceTarget } from "../../workspace/index.js";
import { fileSystemErrorMessage } from "../fs/messages.js";

/**
 * The file an edit call acts on, as its workspace resolved it once for the call (the near-miss
 * name found, the real path, the mutation queue's key, the display path), or the error resolving
 * it ran into, as a sentence for the model about `path` (the argument as written): a name too long,
 * a part of the path that is a file.
 */
export function resolvedPathOf(target: WorkspaceTarget, path: string | undefined): ResolvedPath {
	if (target.resolved) return target.resolved;
	if (target.resolveError === undefined || path === undefined)
		throw target.resolveError ?? new ToolError("edit needs path: the file to change.");
	throw new ToolError(fileSystemErrorMessage(target.resolveError, path, "edit"), { path });
}
