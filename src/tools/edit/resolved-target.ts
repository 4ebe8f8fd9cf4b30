import { ToolError } from "../../engine/index.js";
import type { ResolvedPath, WorkspaceTarget } from "../../workspace/index.js";

/**
 * The file an edit call acts on, as its workspace resolved it once for the call (the near-miss
 * name found, the real path, the mutation queue's key, the display path), or the error resolving
 * it ran into, thrown as it came.
 */
export function resolvedPathOf(target: WorkspaceTarget): ResolvedPath {
	if (target.resolved) return target.resolved;
	throw target.resolveError ?? new ToolError("edit needs path: the file to change.");
}
