import type { RemoteWorkspace } from "../workspace/remote/index.js";
import type { CheckpointFileAccess } from "./file-access.js";
import { checkpointFilesOf } from "./workspace-file-access.js";

/**
 * `CheckpointFileAccess` through a remote workspace: `checkpointFilesOf` with POSIX paths. Pass
 * `roots` (the remote real path of its folder) so that every restore is judged on the remote side
 * in the same command that writes (see `CheckpointFilesOptions.roots`).
 */
export function remoteCheckpointFiles(
	workspace: RemoteWorkspace,
	options: { roots?: readonly string[] } = {},
): CheckpointFileAccess {
	return checkpointFilesOf(workspace, { roots: options.roots, posixPaths: true });
}
